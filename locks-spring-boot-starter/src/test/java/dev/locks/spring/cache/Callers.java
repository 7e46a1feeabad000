package dev.locks.spring.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Concurrent callers of cached methods, started together: a loader waits ({@link #awaitAll}) until every caller
 * has made its call and a little longer, so that the callers miss together, whichever node they are on.
 */
public final class Callers {

    private final AtomicInteger called = new AtomicInteger();

    private volatile int expected;

    /** Runs {@code calls} together, each on a thread of its own; returns each one's result or exception. */
    public List<Object> runTogether(List<Callable<?>> calls) throws Exception {
        called.set(0);
        expected = calls.size();
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Object>> running = new ArrayList<>();
            for (Callable<?> call : calls) {
                running.add(pool.submit(() -> {
                    start.await();
                    called.incrementAndGet();
                    try {
                        return call.call();
                    }
                    catch (Exception ex) {
                        return ex;
                    }
                }));
            }
            start.countDown();
            List<Object> results = new ArrayList<>();
            for (Future<Object> call : running) {
                results.add(call.get(1, TimeUnit.MINUTES));
            }
            return results;
        }
        finally {
            pool.shutdownNow();
            expected = 0;
        }
    }

    /**
     * Waits (at most 20 s) until every caller of the current {@link #runTogether} has made its call, then 300 ms
     * more, for the calls to reach their wait; returns at once outside a run.
     */
    void awaitAll() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (called.get() < expected && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        if (expected > 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
        }
    }
}
