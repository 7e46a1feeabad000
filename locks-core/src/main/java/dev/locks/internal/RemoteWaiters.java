package dev.locks.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The threads of this node that wait for keys held on other nodes, woken by the store's release
 * notifications (one subscription for the node).
 *
 * <p>No wake-up is lost between a failed remote attempt and the waiter's registration: every notification
 * first bumps an epoch of its key's stripe, then wakes the key's waiters; a waiter reads the epochs of its
 * keys before the attempt, registers, then re-reads the epoch of the key that blocked it, and retries at once
 * if it moved. A drained list refuses late registrations, which then go to a fresh list.
 */
final class RemoteWaiters {

    private static final int STRIPES = 256;

    private final AtomicLongArray epochs = new AtomicLongArray(STRIPES);
    private final ConcurrentHashMap<String, KeyWaiters> waiting = new ConcurrentHashMap<>();

    /** The epoch of {@code key}'s stripe, read before an attempt. */
    long epoch(String key) {
        return epochs.get(stripe(key));
    }

    /** A notification: {@code key} was released somewhere. */
    void released(String key) {
        epochs.incrementAndGet(stripe(key));
        KeyWaiters waiters = waiting.remove(key);
        if (waiters != null) {
            waiters.drain();
        }
    }

    /** Wakes every waiter: the subscription was (re)established, and releases may have been missed. */
    void releasedAll() {
        for (int i = 0; i < STRIPES; i++) {
            epochs.incrementAndGet(i);
        }
        waiting.keySet().forEach(this::released);
    }

    /** A blocker for {@code key}, held elsewhere, as it stood at {@code epochBefore}. */
    Blocker blocker(String key, long epochBefore) {
        return new Blocker() {
            @Override
            public String key() {
                return key;
            }

            @Override
            public boolean isWaiting(Waiter waiter) {
                return waiter.list != null && waiter.list == waiting.get(key) && !waiter.isSignalled();
            }

            @Override
            public boolean addWaiter(Waiter waiter) {
                for (;;) {
                    KeyWaiters waiters = waiting.computeIfAbsent(key, k -> new KeyWaiters());
                    if (waiter.list != null && waiter.list != waiters) {
                        return false; // its list was drained since isWaiting: the key was released
                    }
                    if (waiter.list == waiters || waiters.add(waiter)) {
                        return epoch(key) == epochBefore;
                    }
                    waiting.remove(key, waiters);
                }
            }
        };
    }

    private static int stripe(String key) {
        return (key.hashCode() * 0x9E3779B9) >>> 24;
    }

    /** The waiters of one key: a stack that is drained once. */
    private static final class KeyWaiters {

        private static final Object DRAINED = new Object();
        private static final VarHandle HEAD;

        static {
            try {
                HEAD = MethodHandles.lookup().findVarHandle(KeyWaiters.class, "head", Object.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // through HEAD
        private Object head;

        boolean add(Waiter waiter) {
            for (;;) {
                Object current = HEAD.getVolatile(this);
                if (current == DRAINED) {
                    return false;
                }
                waiter.requireUnlisted();
                waiter.next = (Waiter) current;
                if (HEAD.compareAndSet(this, current, waiter)) {
                    waiter.list = this;
                    return true;
                }
            }
        }

        void drain() {
            Object waiters = HEAD.getAndSet(this, DRAINED);
            for (Waiter w = waiters instanceof Waiter first ? first : null; w != null; w = w.next) {
                w.signal();
            }
        }
    }
}
