package dev.locks.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node's background refreshes (section 11): at most {@code maxConcurrent} at once, each key at most once at a
 * time on the node; beyond the bound a refresh is skipped, never queued. Its threads (daemons, named
 * {@code locks-refresh-N}) start on demand and end after a minute idle: no timer, no thread while nothing is
 * refreshed. Not an API.
 */
final class Refreshes {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Semaphore permits;
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private final ExecutorService pool;

    Refreshes(int maxConcurrent) {
        this.permits = new Semaphore(ComputeCalls.requireRefreshMaxConcurrent(maxConcurrent));
        this.pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                task -> {
                    Thread thread = new Thread(task, "locks-refresh-" + THREADS.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /** What {@link #start} did. */
    enum Started { STARTED, RUNNING, SKIPPED }

    /**
     * Runs {@code refresh} of {@code key} in the background, unless one of the key runs on this node already
     * ({@link Started#RUNNING}) or the pool is full ({@link Started#SKIPPED}).
     */
    Started start(String key, Runnable refresh) {
        if (running.contains(key)) {
            return Started.RUNNING;
        }
        if (!permits.tryAcquire()) {
            return Started.SKIPPED;
        }
        if (!running.add(key)) {
            permits.release();
            return Started.RUNNING;
        }
        try {
            pool.execute(() -> {
                try {
                    refresh.run();
                } finally {
                    running.remove(key);
                    permits.release();
                }
            });
        } catch (RejectedExecutionException closed) {
            running.remove(key);
            permits.release();
            return Started.SKIPPED;
        }
        return Started.STARTED;
    }

    /** Starts no more refreshes; those running end on their own. */
    void close() {
        pool.shutdown();
    }
}
