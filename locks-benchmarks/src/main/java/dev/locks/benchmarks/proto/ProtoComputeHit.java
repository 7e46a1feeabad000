package dev.locks.benchmarks.proto;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.locks.local.LocalComputeCache;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Where a fetch-or-compute hit's time goes: this project's call, a bare Caffeine cache built as its value
 * store is (size bound and a variable, per-entry expiry), and one with a fixed {@code expireAfterWrite}, in one
 * run. If the variable-expiry cache alone is as slow as the call, the store's configuration is the cost; the
 * last variant keeps each value's deadline in the value instead.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ProtoComputeHit {

    private static final String KEY = "quote:1000";
    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Object VALUE = new Object();
    private static final Supplier<Object> COMPUTE = () -> VALUE;

    private LocalComputeCache computeCache;
    private Cache<String, Object> variableExpiry;
    private Cache<String, Object> fixedExpiry;
    private Cache<String, Expiring> deadlineInValue;

    @Setup
    public void setUp() {
        computeCache = LocalComputeCache.builder().maxEntries(10_000).build();
        computeCache.fetchOrCompute(KEY, TTL, COMPUTE);
        variableExpiry = Caffeine.newBuilder().maximumSize(10_000)
                .expireAfter(Expiry.<String, Object>creating((key, value) -> Duration.ofNanos(Long.MAX_VALUE)))
                .build();
        variableExpiry.policy().expireVariably().orElseThrow().put(KEY, VALUE, TTL);
        fixedExpiry = Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(TTL).build();
        fixedExpiry.put(KEY, VALUE);
        deadlineInValue = Caffeine.newBuilder().maximumSize(10_000).build();
        deadlineInValue.put(KEY, new Expiring(VALUE, System.nanoTime() + TTL.toNanos()));
    }

    @Benchmark
    public Object fetchOrCompute() {
        return computeCache.fetchOrCompute(KEY, TTL, COMPUTE);
    }

    @Benchmark
    public Object caffeineVariableExpiry() {
        return variableExpiry.getIfPresent(KEY);
    }

    @Benchmark
    public Object caffeineFixedExpiry() {
        return fixedExpiry.getIfPresent(KEY);
    }

    /**
     * The value store as it could be: Caffeine bounds the size only, each value carries its deadline, and a hit
     * checks it (one clock read); an expired value is a miss, and is replaced or evicted by size.
     */
    @Benchmark
    public Object deadlineInValue() {
        Expiring stored = deadlineInValue.getIfPresent(KEY);
        return stored == null || System.nanoTime() - stored.deadlineNanos >= 0 ? null : stored.value;
    }

    /** A stored value and when it expires. */
    record Expiring(Object value, long deadlineNanos) {
    }

    /** The key check every call makes ({@code isBlank} scans the key). */
    @Benchmark
    public boolean keyCheck() {
        return KEY.isBlank();
    }
}
