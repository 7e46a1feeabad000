package dev.locks.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
 * client's I/O thread delivering a release notification). It is a {@link ForkJoinPool} of at most
 * {@code threads} daemon threads, idle ones gone after a minute: handing it a step never parks the thread that
 * does (its queues are lock-free), so an event loop may start or wake an acquire. Its queues are unbounded, since
 * they only ever hold the steps of acquires already admitted.
 */
final class AsyncWaits implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(AsyncWaits.class.getName());

    private final ForkJoinPool pool;
    private final ScheduledThreadPoolExecutor timer;
    private final Set<AsyncAcquire> active = ConcurrentHashMap.newKeySet();

    AsyncWaits(String name, int threads) {
        this.pool = new ForkJoinPool(threads, workersNamed(name), null, true);
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, name + "-timer");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** A {@code ForkJoinPool}'s workers named {@code name-1}, {@code name-2}, ... (daemons, as every worker is). */
    static ForkJoinPool.ForkJoinWorkerThreadFactory workersNamed(String name) {
        AtomicInteger count = new AtomicInteger();
        return forkJoinPool -> {
            ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(forkJoinPool);
            thread.setName(name + "-" + count.incrementAndGet());
            return thread;
        };
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
}
