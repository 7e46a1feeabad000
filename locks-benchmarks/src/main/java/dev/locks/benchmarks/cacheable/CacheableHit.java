package dev.locks.benchmarks.cacheable;

import dev.locks.benchmarks.spring.BenchmarkContext;
import dev.locks.benchmarks.spring.SlowQuotes;
import dev.locks.local.LocalComputeCache;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.cache.Cache;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A {@code @Cacheable(sync = true)} hit, with and without the starter's single-flight wrapper
 * ({@code locks.cache.single-flight}), in nanoseconds per call: the annotated method of {@link BenchmarkContext}'s
 * context (Spring's cache interceptor asks the manager for the cache, then calls {@code Cache.get(key, loader)}),
 * in a context without the property and in one with it; and {@code Cache.get(key, loader)} alone on Spring's
 * {@code CaffeineCache} and on the same cache wrapped. The key is stored before the measurement.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class CacheableHit {

    private static final String KEY = "ACME";

    private static final Callable<String> LOAD = () -> "quote of ACME";

    private ConfigurableApplicationContext plain;

    private ConfigurableApplicationContext singleFlight;

    private SlowQuotes plainQuotes;

    private SlowQuotes singleFlightQuotes;

    private LocalComputeCache computeCache;

    private SingleFlightCaches wrapper;

    private Cache caffeine;

    private Cache wrapped;

    @Setup
    public void setUp() {
        plain = BenchmarkContext.start();
        singleFlight = BenchmarkContext.start("locks.cache.single-flight=true");
        plainQuotes = plain.getBean(SlowQuotes.class);
        singleFlightQuotes = singleFlight.getBean(SlowQuotes.class);
        plainQuotes.cachedQuote(KEY);
        singleFlightQuotes.cachedQuote(KEY);
        computeCache = LocalComputeCache.builder().build();
        wrapper = new SingleFlightCaches(computeCache);
        caffeine = new CaffeineCacheManager("quotes").getCache("quotes");
        wrapped = wrapper.wrap(new CaffeineCacheManager("quotes")).getCache("quotes");
        caffeine.get(KEY, LOAD);
        wrapped.get(KEY, LOAD);
    }

    @TearDown
    public void tearDown() {
        wrapper.close();
        singleFlight.close();
        plain.close();
    }

    @Benchmark
    public Object cacheableSync() {
        return plainQuotes.cachedQuote(KEY);
    }

    @Benchmark
    public Object cacheableSyncSingleFlight() {
        return singleFlightQuotes.cachedQuote(KEY);
    }

    @Benchmark
    public String cacheGet() {
        return caffeine.get(KEY, LOAD);
    }

    @Benchmark
    public String cacheGetSingleFlight() {
        return wrapped.get(KEY, LOAD);
    }
}
