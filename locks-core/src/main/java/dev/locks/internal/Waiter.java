package dev.locks.internal;

import dev.locks.spi.RemoteLockStore;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * One waiting acquire (its ticket): a thread, or an asynchronous acquire ({@link AsyncAcquire}, which holds no
 * thread while it waits), with its place in the wait queues of its keys
 * ({@link WaitQueues}), from its first failed attempt until it gets its keys or gives up, when it leaves
 * every queue. Its {@link #order} is fixed when it starts waiting: the older waiter of a key comes first.
 *
 * <p>A wake-up is a count, not a flag: the acquire reads {@link #signals()} before each attempt and parks
 * only while it has not moved, so a signal sent during the attempt is never lost.
 */
final class Waiter {

    private static final VarHandle SIGNALS;

    static {
        try {
            SIGNALS = MethodHandles.lookup().findVarHandle(Waiter.class, "signals", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The waiting thread; for an asynchronous acquire, the thread that asked (for descriptions only). */
    final Thread thread;
    /** The asynchronous acquire that a signal wakes, or {@code null} when the waiter is a parked thread. */
    final AsyncAcquire async;
    /** Its place among this JVM's waiters: lower is older. */
    final long order;
    /** The keys of the acquire, sorted. */
    final String[] keys;
    /**
     * Its keys' queues it is in: {@code keys[from..to)}; read and written by its own thread only (an asynchronous
     * acquire's by whichever thread runs its next step, one at a time).
     */
    int from;
    int to;
    /**
     * Whether it got its keys: leaving its queues then hands no wake-up on (the keys are its own now, and their
     * release wakes the next waiter).
     */
    volatile boolean took;
    /** Whether it waits for an entry of this JVM's table (rather than for a key held on another node). */
    volatile boolean local;
    /**
     * Whether it takes its keys exclusive (a writer): in front of a store, newer shared acquirers of this JVM wait
     * behind it ({@link WaitQueues#olderWriter}).
     */
    volatile boolean exclusive;
    /**
     * Its ticket in a remote store: id, order there (0 until placed), the keys it may be placed at (to take it
     * out of when it gives up), and when it was last placed.
     */
    String remoteId;
    /** Volatile: the queues read it to tell, among a key's asynchronous waiters, whom the store lets in first. */
    volatile long remoteOrder;
    final Set<String> remoteKeys = new LinkedHashSet<>();
    /** When the waiter's ticket was last placed (or re-placed) in the store by its own calls. */
    volatile long remotePlacedNanos;
    /**
     * When a refresh of all of a node's tickets ({@link RemoteLocks#refresh}) last extended this one's, if it was
     * still queued: that refresh never places a ticket, so {@link #remotePlacedNanos} does not move with it, and a
     * ticket that was gone is placed again by the waiter's next attempt or local block.
     */
    volatile long remoteRefreshedNanos;
    /**
     * The keys at which this node's {@link OwnTickets} has the ticket, which keeps this node's newer callers out of
     * them; written by the waiter's own steps.
     */
    List<String> ticketKeys = List.of();
    /** The order under which {@link OwnTickets} has it at {@link #ticketKeys}. */
    long ticketOrder;
    /** {@link #remoteKeys} as last placed, for the node's refresh of its tickets (another thread's). */
    volatile List<String> queuedKeys = List.of();
    /**
     * Its acquire's wait time ({@link RemoteLockStore#UNBOUNDED_WAIT} without one) and when the acquire began (the
     * engine's clock): its calls to a store wait no longer than what is left of it.
     */
    private long waitNanos = RemoteLockStore.UNBOUNDED_WAIT;
    private long waitStartNanos;
    @SuppressWarnings("unused") // through SIGNALS
    private volatile int signals;

    Waiter(Thread thread, long order, String[] keys) {
        this(thread, null, order, keys);
    }

    Waiter(Thread thread, AsyncAcquire async, long order, String[] keys) {
        this.thread = thread;
        this.async = async;
        this.order = order;
        this.keys = keys;
    }

    boolean isAsync() {
        return async != null;
    }

    void waits(long startNanos, long nanos) {
        waitStartNanos = startNanos;
        waitNanos = nanos;
    }

    /**
     * How long its calls to a remote store may still wait for the store's own resources at {@code nowNanos}: what is
     * left of its wait time, or {@link RemoteLockStore#UNBOUNDED_WAIT} without one.
     */
    long storeWaitNanos(long nowNanos) {
        return waitNanos == RemoteLockStore.UNBOUNDED_WAIT ? waitNanos
                : Math.max(0, waitNanos - (nowNanos - waitStartNanos));
    }

    int signals() {
        return signals;
    }

    /** Wakes the waiter: unparks its thread, or has its asynchronous acquire try again (never on this thread). */
    void signal() {
        SIGNALS.getAndAdd(this, 1);
        if (async != null) {
            async.wake();
        } else {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Parks until signalled after {@code seen} was read, interrupted, or {@code nanos} have passed (real
     * time). Permits left over from earlier wake-ups do not end the wait early. The interrupt status is left
     * as it is: the caller checks it and stops waiting.
     *
     * @return whether the thread is interrupted
     */
    boolean await(int seen, long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (signals == seen && !thread.isInterrupted()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            LockSupport.parkNanos(this, left);
        }
        return thread.isInterrupted();
    }

    @Override
    public String toString() {
        return "Waiter[" + thread.getName() + (async != null ? " (async)" : "") + ", order " + order + "]";
    }
}
