package dev.locks.benchmarks.spring;

import dev.locks.annotation.FetchOrCompute;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.Cacheable;

/** A slow computation behind both annotations, counting how often it runs: the stampede's subject. */
public class SlowQuotes {

    private final AtomicInteger computations = new AtomicInteger();
    private final long computeMillis;
    private volatile long computedAt;

    public SlowQuotes(long computeMillis) {
        this.computeMillis = computeMillis;
    }

    @FetchOrCompute(key = "'quote:' + #symbol", ttl = "5m")
    public Object quote(String symbol) {
        return compute(symbol);
    }

    @Cacheable(cacheNames = BenchmarkContext.CACHE, key = "'quote:' + #symbol", sync = true)
    public Object cachedQuote(String symbol) {
        return compute(symbol);
    }

    /** The computation: sleeps, counts, notes when it ended, returns a fresh value. */
    public Object compute(String symbol) {
        computations.incrementAndGet();
        try {
            Thread.sleep(computeMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        computedAt = System.nanoTime();
        return symbol + ":42";
    }

    /** The {@link System#nanoTime()} at which the last computation ended. */
    public long computedAt() {
        return computedAt;
    }

    public int computations() {
        return computations.get();
    }
}
