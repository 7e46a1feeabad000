package dev.locks.benchmarks.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.locks.local.LocalComputeCache;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * A fetch-or-compute hit: {@code LocalComputeCache.fetchOrCompute} against a Caffeine cache with a size bound
 * and an expiry (what a developer would build instead), read with {@code getIfPresent} and with
 * {@code get(key, fn)}. Each thread reads a key of its own, stored before measuring.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class LocalComputeHit {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Object VALUE = new Object();
    private static final Supplier<Object> COMPUTE = () -> VALUE;
    private static final Function<String, Object> LOAD = key -> VALUE;

    LocalComputeCache computeCache;
    Cache<String, Object> caffeine;

    @Setup
    public void setUp() {
        computeCache = LocalComputeCache.builder().maxEntries(10_000).build();
        caffeine = Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(TTL).build();
    }

    /** One caller and its key, stored in both caches. */
    @State(Scope.Thread)
    public static class Caller {
        String key;

        @Setup
        public void setUp(ThreadParams thread, LocalComputeHit benchmark) {
            key = "quote:" + (1000 + thread.getThreadIndex());
            benchmark.computeCache.fetchOrCompute(key, TTL, COMPUTE);
            benchmark.caffeine.put(key, VALUE);
        }
    }

    @Benchmark
    public Object thisProject(Caller caller) {
        return computeCache.fetchOrCompute(caller.key, TTL, COMPUTE);
    }

    @Benchmark
    public Object caffeineGetIfPresent(Caller caller) {
        return caffeine.getIfPresent(caller.key);
    }

    @Benchmark
    public Object caffeineGet(Caller caller) {
        return caffeine.get(caller.key, LOAD);
    }
}
