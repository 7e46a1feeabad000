package dev.locks.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads on which a compute engine in front of a store makes the blocking calls of its asynchronous
 * {@code begin} ({@link ComputeEngine#beginAsync}), apart from the pool that wakes waiters and completes futures
 * ({@link AsyncWaits}), which never blocks:
 * <ul>
 *   <li>{@link #lookUp}: lookups, one short round trip each, on at most a fixed number of daemon threads (idle ones
 *       gone after a minute) with a queue, so that a burst of ten thousand calls costs ten thousand queued tasks,
 *       not threads. It is a {@code ForkJoinPool}, since a lookup is handed over by the caller's thread, an event
 *       loop's maybe: its queues take no lock that could park that thread, where a {@code ThreadPoolExecutor}'s
 *       queue does under contention. Its size is a hard bound: a client call that waits for its future in a
 *       lookup adds no spare thread, as it would in a pool left to compensate for blocked workers;</li>
 *   <li>{@link #turn}: the node's one caller in the protocol across nodes for a key, which may wait for another
 *       node's computer as long as its compute timeout: a thread each, started when needed and gone after a minute
 *       idle. There is at most one per key at a time on this node, whatever the number of waiters.</li>
 * </ul>
 */
final class StoreCallThreads implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(StoreCallThreads.class.getName());

    private final ForkJoinPool lookups;
    private final ThreadPoolExecutor turns;

    StoreCallThreads(String name, int lookupThreads) {
        this.lookups = new ForkJoinPool(lookupThreads, AsyncWaits.workersNamed(name), null, true, 0, lookupThreads, 1,
                pool -> true, 60, TimeUnit.SECONDS);
        this.turns = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemons(name + "-turn-"));
    }

    /** Runs a lookup; once closed, nowhere (the engine failed every pending call by then). */
    void lookUp(Runnable call) {
        execute(lookups, call);
    }

    /** Runs the node's caller in the protocol for a key; once closed, nowhere. */
    void turn(Runnable call) {
        execute(turns, call);
    }

    @Override
    public void close() {
        lookups.shutdownNow();
        turns.shutdownNow();
    }

    private static void execute(ExecutorService threads, Runnable call) {
        try {
            threads.execute(call);
        } catch (RejectedExecutionException e) {
            LOG.log(System.Logger.Level.DEBUG, "an asynchronous compute call came after the cache closed", e);
        }
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
