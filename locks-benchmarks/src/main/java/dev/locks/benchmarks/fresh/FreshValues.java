package dev.locks.benchmarks.fresh;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.benchmarks.redis.RedisServerProcess;
import dev.locks.benchmarks.report.ResultLine;
import dev.locks.benchmarks.report.Stats;
import dev.locks.benchmarks.spring.BenchmarkContext;
import dev.locks.benchmarks.spring.SlowQuotes;
import dev.locks.local.LocalComputeCache;
import dev.locks.redis.RedisComputeCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Fresh values (issue 22): one hot key read by {@value #THREADS} threads while its value goes stale every
 * {@code 200 ms} and its computation takes {@value BenchmarkContext#COMPUTE_MILLIS} ms. Every read is timed (no
 * sampling, so the maximum is the true maximum of the trial); the report gives the latency percentiles and the
 * reads that waited at least half a computation.
 *
 * <p>Each reader pauses {@value #PACE_MICROS} µs between reads (a hot key read by requests, not a spin loop):
 * eight spinning threads on a few cores would preempt one another in the middle of a read and measure the
 * scheduler, not the cache.
 *
 * <p>The variants, each on a key and computation of its own:
 * <ul>
 *   <li>{@code hitOnly}: this project's {@code fetchOrCompute}, TTL 5 minutes: every read a hit (the baseline);
 *   <li>{@code thisProjectTtl}: {@code fetchOrCompute}, TTL 200 ms: a miss, and a wait, at every expiry;
 *   <li>{@code thisProjectRefreshAfter}: {@code fetchOrCompute}, TTL 400 ms, {@code refreshAfter} 200 ms;
 *   <li>{@code caffeineRefreshAfterWrite}: a Caffeine {@code LoadingCache}, {@code refreshAfterWrite(200ms)} and
 *       {@code expireAfterWrite(400ms)} (one JVM);
 *   <li>{@code cacheableSync}: Spring's {@code @Cacheable(sync = true)} on a Caffeine cache with
 *       {@code expireAfterWrite(200ms)}, in the benchmarks' Spring context;
 *   <li>{@code redisHitOnly}, {@code redisTtl} and {@code redisRefreshAfter}: the three {@code fetchOrCompute}
 *       variants on {@code RedisComputeCache}, on a redis-server this class starts.
 * </ul>
 *
 * <p>Arguments: {@code [seconds per trial] [trials] [variant regex]}, default 5, 3, all.
 */
public final class FreshValues {

    static final int THREADS = 8;
    static final long PACE_MICROS = 50;
    /** A read that took at least this long waited for (part of) a computation, or was preempted for as long. */
    static final long WAITED_NANOS = TimeUnit.MILLISECONDS.toNanos(BenchmarkContext.COMPUTE_MILLIS / 2);

    private static final Duration STALE = Duration.ofMillis(200);
    private static final ComputeOptions PLAIN_TTL = ComputeOptions.defaults().withTtl(STALE);
    private static final ComputeOptions REFRESH =
            ComputeOptions.defaults().withTtl(STALE.multipliedBy(2)).withRefreshAfter(STALE);

    private FreshValues() {
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        int trials = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Pattern only = Pattern.compile(args.length > 2 ? args[2] : ".*");
        Run run = new Run(seconds, trials, only);

        LocalComputeCache local = LocalComputeCache.builder().build();
        run.fetchOrCompute("hitOnly", local, ComputeOptions.defaults().withTtl(Duration.ofMinutes(5)));
        run.fetchOrCompute("thisProjectTtl", local, PLAIN_TTL);
        run.fetchOrCompute("thisProjectRefreshAfter", local, REFRESH);

        if (run.wanted("caffeineRefreshAfterWrite")) {
            SlowQuotes quotes = new SlowQuotes(BenchmarkContext.COMPUTE_MILLIS);
            LoadingCache<String, Object> caffeine = Caffeine.newBuilder().refreshAfterWrite(STALE)
                    .expireAfterWrite(STALE.multipliedBy(2)).build(quotes::compute);
            run.measure("caffeineRefreshAfterWrite", quotes, () -> caffeine.get("ACME"));
        }

        if (run.wanted("cacheableSync")) {
            try (ConfigurableApplicationContext context =
                    BenchmarkContext.start(BenchmarkContext.CACHE_EXPIRY + "=" + STALE.toMillis() + "ms")) {
                SlowQuotes quotes = context.getBean(SlowQuotes.class);
                run.measure("cacheableSync", quotes, () -> quotes.cachedQuote("ACME"));
            }
        }

        if (run.wanted("redisHitOnly") || run.wanted("redisTtl") || run.wanted("redisRefreshAfter")) {
            try (RedisServerProcess server = RedisServerProcess.start()) {
                LettuceConnectionFactory factory =
                        new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
                factory.afterPropertiesSet();
                factory.start();
                try (RedisComputeCache redis = RedisComputeCache.builder(factory).build()) {
                    run.fetchOrCompute("redisHitOnly", redis, ComputeOptions.defaults().withTtl(Duration.ofMinutes(5)));
                    run.fetchOrCompute("redisTtl", redis, PLAIN_TTL);
                    run.fetchOrCompute("redisRefreshAfter", redis, REFRESH);
                }
                finally {
                    factory.destroy();
                }
            }
        }
    }

    /** The run's settings, and the measurement of one variant. */
    private record Run(long seconds, int trials, Pattern only) {

        boolean wanted(String variant) {
            return only.matcher(variant).find();
        }

        void fetchOrCompute(String variant, ComputeCache cache, ComputeOptions options) throws InterruptedException {
            if (wanted(variant)) {
                SlowQuotes quotes = new SlowQuotes(BenchmarkContext.COMPUTE_MILLIS);
                String key = "quote:" + variant;
                measure(variant, quotes, () -> cache.fetchOrCompute(key, options, () -> quotes.compute("ACME")));
            }
        }

        void measure(String variant, SlowQuotes quotes, Supplier<Object> read) throws InterruptedException {
            read(read, TimeUnit.SECONDS.toNanos(1)); // warm-up, and the key's first value
            double[] maxMillis = new double[trials];
            List<long[]> all = new ArrayList<>();
            long waited = 0;
            int computationsBefore = quotes.computations();
            for (int i = 0; i < trials; i++) {
                long[] latencies = read(read, TimeUnit.SECONDS.toNanos(seconds));
                all.add(latencies);
                maxMillis[i] = latencies[latencies.length - 1] / 1e6;
                waited += Arrays.stream(latencies).filter(nanos -> nanos >= WAITED_NANOS).count();
            }
            int computations = quotes.computations() - computationsBefore;
            long[] pooled = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            Stats stats = Stats.of(pooled);
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put("p50Us", micros(stats.percentile(50)));
            extra.put("p99Us", micros(stats.percentile(99)));
            extra.put("p999Us", micros(stats.percentile(99.9)));
            extra.put("maxMs", String.format(Locale.ROOT, "%.2f", stats.max() / 1e6));
            extra.put("waitedReads", Long.toString(waited));
            extra.put("reads", Integer.toString(pooled.length));
            extra.put("computationsPerSecond",
                    String.format(Locale.ROOT, "%.1f", computations / (double) (seconds * trials)));
            extra.put("threads", Integer.toString(THREADS));
            extra.put("trials", Integer.toString(trials));
            ResultLine.of("freshValues", variant, "ms", Stats.of(maxMillis), extra).print();
        }

        /** {@value #THREADS} threads read for {@code nanos}; every read's latency, sorted. */
        private static long[] read(Supplier<Object> read, long nanos) throws InterruptedException {
            CountDownLatch gate = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long[][] perThread = new long[THREADS][];
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int index = t;
                Thread reader = new Thread(() -> {
                    long[] latencies = new long[1 << 16];
                    int count = 0;
                    try {
                        gate.await();
                        long end = System.nanoTime() + nanos;
                        for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                            Object value = read.get();
                            long latency = System.nanoTime() - now;
                            if (!"ACME:42".equals(value)) {
                                throw new IllegalStateException("read " + value + ", not ACME:42");
                            }
                            if (count == latencies.length) {
                                latencies = Arrays.copyOf(latencies, count * 2);
                            }
                            latencies[count++] = latency;
                            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(PACE_MICROS));
                        }
                    }
                    catch (Throwable ex) {
                        failure.compareAndSet(null, ex);
                    }
                    perThread[index] = Arrays.copyOf(latencies, count);
                }, "reader-" + t);
                reader.setDaemon(true);
                readers.add(reader);
                reader.start();
            }
            gate.countDown();
            for (Thread reader : readers) {
                reader.join();
            }
            if (failure.get() != null) {
                throw new IllegalStateException("a reader failed", failure.get());
            }
            return Arrays.stream(perThread).flatMapToLong(Arrays::stream).sorted().toArray();
        }

        private static String micros(double nanos) {
            return String.format(Locale.ROOT, "%.1f", nanos / 1e3);
        }
    }
}
