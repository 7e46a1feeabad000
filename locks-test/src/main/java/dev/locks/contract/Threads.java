package dev.locks.contract;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs test code on other threads, with bounded waits; close it after the test. */
public final class Threads implements AutoCloseable {

    /** The bound of every wait on another thread: generous, so that a loaded machine never flakes. */
    public static final Duration BOUND = Duration.ofSeconds(30);

    private final ExecutorService executor = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "contract-worker");
        thread.setDaemon(true);
        return thread;
    });

    /** Starts {@code task} on another thread. */
    public <T> Future<T> start(Callable<T> task) {
        return executor.submit(task);
    }

    /** Runs {@code task} on another thread and returns its result, rethrowing what it threw. */
    public <T> T run(Callable<T> task) throws Exception {
        return get(start(task));
    }

    /** The result of {@code future}, within {@link #BOUND}; what the task threw is rethrown as is. */
    public static <T> T get(Future<T> future) throws Exception {
        return get(future, BOUND);
    }

    /** The result of {@code future}, within {@code bound}; what the task threw is rethrown as is. */
    public static <T> T get(Future<T> future, Duration bound) throws Exception {
        try {
            return future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new AssertionError("no result within " + bound + ": deadlock or lost wake-up? The library's threads:"
                    + libraryThreads(), e);
        }
    }

    /** The stacks of the library's threads ({@code locks-*}), to tell a deadlock from a lost wake-up. */
    private static String libraryThreads() {
        StringBuilder dump = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().startsWith("locks")) {
                dump.append("\n\"").append(thread.getName()).append("\" ").append(thread.getState());
                for (int i = 0; i < Math.min(stack.length, 12); i++) {
                    dump.append("\n    at ").append(stack[i]);
                }
            }
        });
        return dump.length() == 0 ? " none" : dump.toString();
    }

    /** A thread that runs {@code task} and then terminates, started and joined. */
    public static void runAndDie(Runnable task) throws InterruptedException {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }, "short-lived");
        thread.start();
        thread.join(BOUND.toMillis());
        done.join();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
