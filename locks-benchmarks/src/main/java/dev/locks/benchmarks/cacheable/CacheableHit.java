package dev.locks.benchmarks.cacheable;

import dev.locks.benchmarks.spring.BenchmarkContext;
import dev.locks.benchmarks.spring.SlowQuotes;
import dev.locks.local.LocalComputeCache;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.springframework.cache.Cache;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A {@code @Cacheable(sync = true)} hit, with and without the starter's single-flight wrapper
 * ({@code locks.cache.single-flight}), in nanoseconds per call: the annotated method of {@link BenchmarkContext}'s
 * context (Spring's cache interceptor asks the manager for the cache, then calls {@code Cache.get(key, loader)}),
 * in a context without the property and in one with it; and {@code Cache.get(key, loader)} alone on Spring's
 * {@code CaffeineCache} and on the same cache wrapped. The key is stored before the measurement.
 *
 * <p>On a loaded machine the two {@code @Cacheable} benchmarks, run one after the other, see different loads, and
 * their ratio says more of the load than of the wrapper. {@code cacheableSyncPaired} measures both calls in the
 * same milliseconds: each invocation times {@value #BLOCK} calls without the wrapper and {@value #BLOCK} with it
 * (in turns, first one then the other), and every measured iteration prints the ns per call of each and their
 * ratio, that of the sums and the median of the invocations' ratios, which leaves out the blocks that the load
 * preempted ("paired hits: ..."; JMH's auxiliary counters would sum the ratios of the iterations): their mean and
 * spread over the iterations of all forks are the overhead's figure.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class CacheableHit {

    private static final String KEY = "ACME";

    /** The calls of each side in one invocation of {@code cacheableSyncPaired}: about a millisecond. */
    static final int BLOCK = 1000;

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

    /** {@value #BLOCK} hits without the wrapper and {@value #BLOCK} with it, each block timed. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public void cacheableSyncPaired(Pair pair, Blackhole consumer) {
        boolean plainFirst = (pair.invocations++ & 1) == 0;
        long started = System.nanoTime();
        hits(plainFirst ? plainQuotes : singleFlightQuotes, consumer);
        long between = System.nanoTime();
        hits(plainFirst ? singleFlightQuotes : plainQuotes, consumer);
        long ended = System.nanoTime();
        pair.add(plainFirst ? between - started : ended - between, plainFirst ? ended - between : between - started);
    }

    private static void hits(SlowQuotes quotes, Blackhole consumer) {
        for (int i = 0; i < BLOCK; i++) {
            consumer.consume(quotes.cachedQuote(KEY));
        }
    }

    @Benchmark
    public String cacheGet() {
        return caffeine.get(KEY, LOAD);
    }

    @Benchmark
    public String cacheGetSingleFlight() {
        return wrapped.get(KEY, LOAD);
    }

    /**
     * What {@code cacheableSyncPaired} measured in an iteration: ns per {@code @Cacheable} hit without the wrapper
     * and with it, and their ratio.
     */
    @State(Scope.Thread)
    public static class Pair {

        int invocations;

        private long withoutNanos;

        private long withNanos;

        private long calls;

        /** Each invocation's ratio: their median leaves out the blocks that the load preempted. */
        private double[] ratios = new double[1024];

        private int pairs;

        @Setup(Level.Iteration)
        public void reset() {
            withoutNanos = 0;
            withNanos = 0;
            calls = 0;
            pairs = 0;
        }

        void add(long without, long with) {
            withoutNanos += without;
            withNanos += with;
            calls += BLOCK;
            if (pairs == ratios.length) {
                ratios = Arrays.copyOf(ratios, pairs * 2);
            }
            ratios[pairs++] = (double) with / without;
        }

        @TearDown(Level.Iteration)
        public void print(IterationParams iteration) {
            if (iteration.getType() == IterationType.MEASUREMENT && calls > 0) {
                double[] sorted = Arrays.copyOf(ratios, pairs);
                Arrays.sort(sorted);
                System.out.printf(Locale.ROOT, "paired hits: without %.1f ns, with %.1f ns, ratio of the sums %.4f,"
                        + " median ratio of %d pairs %.4f%n", (double) withoutNanos / calls, (double) withNanos / calls,
                        (double) withNanos / withoutNanos, pairs, sorted[pairs / 2]);
            }
        }
    }
}
