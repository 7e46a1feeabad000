package dev.locks.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of an engine's asynchronous acquires ({@link AsyncAcquire}), created on the first one: one timer
 * thread for every pause and deadline (never a thread or a timer thread per waiter), and a small bounded pool
 * that runs their attempts and completes their futures. A waiting acquire is on neither: it is a queued timer
 * task and a place in the wait queues, so ten thousand of them cost memory, not threads.
 *
 * <p>The pool runs attempts, which with a remote store are blocking round trips, and the futures' dependent
 * stages, so that these never run on the thread that released a key (an application's thread, or a backend
 * client's I/O thread delivering a release notification). It has {@code threads} threads, idle ones gone after
 * a minute; its queue is unbounded, since it only ever holds the steps of acquires already admitted.
 */
final class AsyncWaits implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(AsyncWaits.class.getName());

    private final ThreadPoolExecutor pool;
    private final ScheduledThreadPoolExecutor timer;
    private final Set<AsyncAcquire> active = ConcurrentHashMap.newKeySet();

    AsyncWaits(String name, int threads) {
        this.pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                daemons(name + "-"));
        pool.allowCoreThreadTimeOut(true);
        this.timer = new ScheduledThreadPoolExecutor(1, daemons(name + "-timer"));
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Runs {@code step} on the pool; once closed, nowhere (every acquire still pending was failed by then). */
    void execute(Runnable step) {
        try {
            pool.execute(step);
        } catch (RejectedExecutionException e) {
            LOG.log(System.Logger.Level.DEBUG, "an asynchronous acquire's step came after the registry closed", e);
        }
    }

    /** Hands {@code step} to the pool after {@code delayNanos} of real time; {@code null} once closed. */
    Future<?> after(long delayNanos, Runnable step) {
        try {
            return timer.schedule(() -> execute(step), delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /** {@code acquire} is pending: it is failed if the registry closes first. */
    void started(AsyncAcquire acquire) {
        active.add(acquire);
    }

    void ended(AsyncAcquire acquire) {
        active.remove(acquire);
    }

    /** How many asynchronous acquires are pending (tests: nothing left behind). */
    int pending() {
        return active.size();
    }

    /**
     * Fails every pending acquire (each leaves its queues on the pool, holding nothing), then stops the threads,
     * waiting briefly for those steps.
     */
    @Override
    public void close() {
        for (AsyncAcquire acquire : active) {
            acquire.registryClosed();
        }
        timer.shutdownNow();
        pool.shutdown();
        try {
            if (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        boolean numbered = prefix.endsWith("-");
        return runnable -> {
            Thread thread = new Thread(runnable, numbered ? prefix + count.incrementAndGet() : prefix);
            thread.setDaemon(true);
            return thread;
        };
    }
}
