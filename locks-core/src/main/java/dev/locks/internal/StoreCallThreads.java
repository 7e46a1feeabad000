package dev.locks.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
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
 *   <li>{@link #lookUp}: lookups, one short round trip each, on a fixed number of daemon threads with a queue, so
 *       that a burst of ten thousand calls costs ten thousand queued tasks, not threads (a {@code ForkJoinPool}
 *       would add a spare thread for each client call that waits for its future);</li>
 *   <li>{@link #turn}: the node's one caller in the protocol across nodes for a key, which may wait for another
 *       node's computer as long as its compute timeout: a thread each, started when needed and gone after a minute
 *       idle. There is at most one per key at a time on this node, whatever the number of waiters.</li>
 * </ul>
 */
final class StoreCallThreads implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(StoreCallThreads.class.getName());

    private final ThreadPoolExecutor lookups;
    private final ThreadPoolExecutor turns;

    StoreCallThreads(String name, int lookupThreads) {
        this.lookups = new ThreadPoolExecutor(lookupThreads, lookupThreads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), daemons(name + "-"));
        lookups.allowCoreThreadTimeOut(true);
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
