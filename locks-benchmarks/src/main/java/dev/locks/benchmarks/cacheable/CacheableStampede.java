package dev.locks.benchmarks.cacheable;

import dev.locks.benchmarks.redis.RedisServerProcess;
import dev.locks.benchmarks.report.ResultLine;
import dev.locks.benchmarks.report.Stats;
import dev.locks.benchmarks.spring.BenchmarkContext;
import dev.locks.redis.RedisComputeCache;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.Cache;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A stampede of {@code @Cacheable(sync = true)} over two nodes: a thousand threads, half on each node, miss one key
 * at once; each node has a Caffeine cache of its own, and loading takes {@value BenchmarkContext#COMPUTE_MILLIS}
 * ms. Per trial: how many times the loader ran, and how long until every thread had the value, from the moment the
 * start gate opened. Spring's {@code CaffeineCache.get(key, loader)} as it is (one load per node), against the same
 * caches wrapped for single flight across nodes on one redis-server that this class starts (each node with its own
 * connection factory and {@code RedisComputeCache}).
 *
 * <p>Arguments: {@code [trials] [threads]}, default 10, 1000.
 */
public final class CacheableStampede {

    private CacheableStampede() {
    }

    public static void main(String[] args) throws Exception {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        try (RedisServerProcess server = RedisServerProcess.start()) {
            measure("caffeinePerNode", new Cache[] {caffeine(), caffeine()}, trials, threads);
            List<Node> nodes = List.of(new Node(server), new Node(server));
            try {
                measure("singleFlightCaffeinePerNode", new Cache[] {nodes.get(0).cache, nodes.get(1).cache}, trials,
                        threads);
            }
            finally {
                nodes.forEach(Node::close);
            }
        }
    }

    private static Cache caffeine() {
        return new CaffeineCacheManager("quotes").getCache("quotes");
    }

    private static void measure(String name, Cache[] nodes, int trials, int threads) throws InterruptedException {
        for (int warmup = 0; warmup < 3; warmup++) {
            trial("warmup-" + name + "-" + warmup, nodes, threads);
        }
        double[] allServedMillis = new double[trials];
        int minLoads = Integer.MAX_VALUE;
        int maxLoads = 0;
        for (int i = 0; i < trials; i++) {
            Trial trial = trial(name + "-" + i, nodes, threads);
            allServedMillis[i] = trial.allServedNanos / 1e6;
            minLoads = Math.min(minLoads, trial.loads);
            maxLoads = Math.max(maxLoads, trial.loads);
        }
        Stats stats = Stats.of(allServedMillis);
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("loadsPerTrialMin", Integer.toString(minLoads));
        extra.put("loadsPerTrialMax", Integer.toString(maxLoads));
        extra.put("loadMillis", Long.toString(BenchmarkContext.COMPUTE_MILLIS));
        extra.put("nodes", Integer.toString(nodes.length));
        extra.put("threads", Integer.toString(threads));
        extra.put("trials", Integer.toString(trials));
        extra.put("p90", String.format(Locale.ROOT, "%.1f", stats.percentile(90)));
        ResultLine.of("cacheableStampede", name, "ms", stats, extra).print();
    }

    /** One stampede on a new key: thread {@code i} calls the cache of node {@code i % nodes}. */
    private static Trial trial(String key, Cache[] nodes, int threads) throws InterruptedException {
        AtomicInteger loads = new AtomicInteger();
        Callable<String> loader = () -> {
            loads.incrementAndGet();
            Thread.sleep(BenchmarkContext.COMPUTE_MILLIS);
            return "quote of " + key;
        };
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch served = new CountDownLatch(threads);
        AtomicInteger failures = new AtomicInteger();
        List<Thread> callers = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            Cache cache = nodes[i % nodes.length];
            Thread caller = new Thread(() -> {
                ready.countDown();
                try {
                    gate.await();
                    cache.get(key, loader);
                }
                catch (Exception ex) {
                    failures.incrementAndGet();
                }
                served.countDown();
            }, "caller-" + i);
            caller.setDaemon(true);
            callers.add(caller);
            caller.start();
        }
        ready.await();
        long started = System.nanoTime();
        gate.countDown();
        served.await();
        long allServed = System.nanoTime() - started;
        for (Thread caller : callers) {
            caller.join();
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " callers of " + key + " failed");
        }
        return new Trial(loads.get(), allServed);
    }

    private record Trial(int loads, long allServedNanos) {
    }

    /** One node: its own connection factory, compute cache on Redis, and wrapped Caffeine cache manager. */
    private static final class Node {

        final LettuceConnectionFactory factory;

        final RedisComputeCache computeCache;

        final SingleFlightCaches singleFlight;

        final Cache cache;

        Node(RedisServerProcess server) {
            factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
            factory.afterPropertiesSet();
            factory.start();
            computeCache = RedisComputeCache.builder(factory).build();
            singleFlight = new SingleFlightCaches(computeCache);
            cache = singleFlight.wrap(new CaffeineCacheManager("quotes")).getCache("quotes");
        }

        void close() {
            singleFlight.close();
            computeCache.close();
            factory.destroy();
        }
    }
}
