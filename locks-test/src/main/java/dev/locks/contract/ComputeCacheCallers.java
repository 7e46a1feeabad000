package dev.locks.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.support.AsyncComputeCache;
import java.time.Duration;
import java.util.List;
import java.util.ArrayList;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Callers of a {@link ComputeCache} in threads of their own, named so that {@link Computation#computer()}
 * can be checked, with bounded waits for what they do and see. {@link #close()} interrupts and joins those
 * still running.
 */
public final class ComputeCacheCallers implements AutoCloseable {

    /** The longest any test waits for anything. */
    public static final Duration PATIENCE = Duration.ofSeconds(10);

    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    /** Runs {@code call} in a new thread named {@code name}. */
    public <T> Future<T> start(String name, Callable<T> call) {
        FutureTask<T> future = new FutureTask<>(call);
        Thread thread = new Thread(future, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
        return future;
    }

    /** What the call returned, waiting a bounded time. */
    public static <T> T result(Future<T> future) {
        try {
            return future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the call threw " + e.getCause(), e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("the call did not end within " + PATIENCE, e);
        }
    }

    /** What the call threw (the object itself, unwrapped), waiting a bounded time. */
    public static Throwable failure(Future<?> future) {
        try {
            Object value = future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("the call returned " + value + " instead of throwing");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("the call did not end within " + PATIENCE, e);
        }
    }

    /** {@code cache} as an {@link AsyncComputeCache}, which every cache built on the core's base class is. */
    public static AsyncComputeCache async(ComputeCache cache) {
        assertThat(cache).as("a cache whose calls can wait without a thread (AbstractComputeCache's are)")
                .isInstanceOf(AsyncComputeCache.class);
        return (AsyncComputeCache) cache;
    }

    /** The computation of {@code key} in flight, if any. */
    public static Optional<Computation> computation(ComputeCache cache, String key) {
        return cache.computations().stream().filter(computation -> computation.key().equals(key)).findFirst();
    }

    /** Waits (bounded) until {@code count} callers wait for the computation of {@code key}. */
    public static void awaitWaiters(ComputeCache cache, String key, int count) {
        patiently().until(() -> computation(cache, key).map(Computation::waiters).orElse(-1) == count);
    }

    /** Waits (bounded) until the computer of {@code key} is the thread named {@code name}. */
    public static void awaitComputer(ComputeCache cache, String key, String name) {
        patiently().until(() -> computation(cache, key).map(Computation::computer).orElse("").contains(name));
    }

    /**
     * {@code count} threads fetch-or-compute {@code key} at once (values kept a minute), as a cross-JVM test
     * does in each JVM: the distinct values they got, sorted.
     */
    public static TreeSet<String> fetchAtOnce(ComputeCache cache, String key, int count,
            Supplier<String> computation) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(count);
        try {
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                results.add(threads.submit(() -> {
                    gate.await();
                    return cache.fetchOrCompute(key, Duration.ofMinutes(1), computation);
                }));
            }
            gate.countDown();
            TreeSet<String> values = new TreeSet<>();
            for (Future<String> result : results) {
                values.add(result.get());
            }
            return values;
        } finally {
            threads.shutdownNow();
        }
    }

    private static org.awaitility.core.ConditionFactory patiently() {
        return await().atMost(PATIENCE).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2));
    }

    @Override
    public void close() throws InterruptedException {
        for (Thread thread : threads) {
            thread.interrupt();
        }
        for (Thread thread : threads) {
            thread.join(PATIENCE.toMillis());
        }
    }
}
