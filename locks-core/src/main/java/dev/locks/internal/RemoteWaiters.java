package dev.locks.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Turns the store's release notifications (one subscription for the node) into wake-ups of this node's
 * waiters for keys held on other nodes, who wait in {@link WaitQueues}.
 *
 * <p>No wake-up is lost between a failed remote attempt and the waiter's joining the key's queue: every
 * notification first bumps an epoch of its key's stripe, then wakes the key's waiters; a waiter reads the
 * epochs of its keys before the attempt, joins the queue, then re-reads the epoch of the key that blocked it,
 * and retries at once if it moved.
 */
final class RemoteWaiters {

    private static final int STRIPES = 256;

    private final AtomicLongArray epochs = new AtomicLongArray(STRIPES);
    private final WaitQueues queues;

    RemoteWaiters(WaitQueues queues) {
        this.queues = queues;
    }

    /** The epoch of {@code key}'s stripe, read before an attempt. */
    long epoch(String key) {
        return epochs.get(stripe(key));
    }

    /** A notification: {@code key} was released somewhere. */
    void released(String key) {
        epochs.incrementAndGet(stripe(key));
        queues.released(key, null, false);
    }

    /** Wakes every waiter: the subscription was (re)established, and releases may have been missed. */
    void releasedAll() {
        for (int i = 0; i < STRIPES; i++) {
            epochs.incrementAndGet(i);
        }
        queues.wakeAll();
    }

    /** A blocker for {@code key}, held elsewhere, as it stood at {@code epochBefore}. */
    Blocker blocker(String key, long epochBefore) {
        return Blocker.of(key, () -> epoch(key) != epochBefore);
    }

    private static int stripe(String key) {
        return (key.hashCode() * 0x9E3779B9) >>> 24;
    }
}
