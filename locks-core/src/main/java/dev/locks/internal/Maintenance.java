package dev.locks.internal;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one background thread of a registry, created only when something needs it (its own periodic sweep,
 * or the watchdog), and stopped by {@link #close()}. Never a thread or timer per lock.
 */
final class Maintenance implements AutoCloseable {

    private final String name;
    private ScheduledExecutorService scheduler;
    private boolean closed;

    Maintenance(String name) {
        this.name = name;
    }

    /** Runs {@code task} every {@code period}, the first time after one period. */
    synchronized void every(Duration period, Runnable task) {
        if (closed) {
            return;
        }
        long nanos = Nanos.of(period);
        scheduler().scheduleWithFixedDelay(guarded(task), nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** Whether {@link #close()} was called: nothing runs any more. */
    synchronized boolean isClosed() {
        return closed;
    }

    /** Runs {@code task} once after {@code delayNanos}; nothing once closed. */
    synchronized void after(long delayNanos, Runnable task) {
        if (closed) {
            return;
        }
        scheduler().schedule(guarded(task), delayNanos, TimeUnit.NANOSECONDS);
    }

    private ScheduledExecutorService scheduler() {
        if (scheduler == null) {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, name);
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            scheduler = executor;
        }
        return scheduler;
    }

    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                System.getLogger(Maintenance.class.getName())
                        .log(System.Logger.Level.WARNING, "locks maintenance task failed; it will run again", e);
            }
        };
    }

    /**
     * Stops the thread and waits briefly for a running task to end (outside this object's monitor, so that
     * the task can still try to schedule its next run, which is then refused).
     */
    @Override
    public void close() {
        ScheduledExecutorService running;
        synchronized (this) {
            closed = true;
            running = scheduler;
        }
        if (running == null) {
            return;
        }
        running.shutdownNow();
        try {
            running.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
