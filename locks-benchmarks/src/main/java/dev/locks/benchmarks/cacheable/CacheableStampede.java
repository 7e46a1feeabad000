package dev.locks.benchmarks.cacheable;

import dev.locks.benchmarks.redis.RedisServerProcess;
import dev.locks.benchmarks.spring.BenchmarkContext;
import dev.locks.redis.RedisComputeCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.spring.cache.RedissonSpringCacheManager;
import org.springframework.cache.Cache;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A stampede of {@code @Cacheable(sync = true)} over two nodes: {@value #THREADS} threads, half on each node, call
 * {@code Cache.get(key, loader)} of a missing key at once (what the cache interceptor calls); loading takes
 * {@value BenchmarkContext#COMPUTE_MILLIS} ms. One invocation is one stampede on a new key, timed from the moment
 * the start gate opens until every thread has the value (the threads are started and parked on the gate before);
 * the {@code loads} and {@code stampedes} counters give the loader calls per stampede.
 *
 * <p>The caches ({@link #cache}), all in one run, on one redis-server that each fork starts:
 * <ul>
 *   <li>{@code caffeinePerNode}: Spring's {@code CaffeineCache} on each node, as it is (one load per node);</li>
 *   <li>{@code singleFlightCaffeinePerNode}: the same caches wrapped as {@code locks.cache.single-flight} wraps
 *       them, each node with its own connection factory and {@code RedisComputeCache};</li>
 *   <li>{@code redisson}: Redisson's {@code RedissonSpringCacheManager}, one Redisson client per node, both on one
 *       Redis map, whose {@code get(key, loader)} takes an {@code RLock} per key on a miss and loads under it.</li>
 * </ul>
 */
@State(Scope.Benchmark)
public class CacheableStampede {

    /** The callers of each stampede, half on each node. */
    static final int THREADS = 1000;

    @Param({"caffeinePerNode", "singleFlightCaffeinePerNode", "redisson"})
    public String cache;

    private RedisServerProcess server;

    private final List<AutoCloseable> closing = new ArrayList<>();

    private Cache[] nodes;

    private int stampedes;

    private String key;

    private final AtomicInteger loads = new AtomicInteger();

    private final AtomicInteger failures = new AtomicInteger();

    private CountDownLatch gate;

    private CountDownLatch served;

    private List<Thread> callers;

    private final List<Integer> loadsPerStampede = new ArrayList<>();

    @Setup(Level.Trial)
    public void start() {
        server = RedisServerProcess.start();
        nodes = new Cache[] {node(), node()};
    }

    private Cache node() {
        switch (cache) {
            case "caffeinePerNode":
                return new CaffeineCacheManager("quotes").getCache("quotes");
            case "singleFlightCaffeinePerNode":
                LettuceConnectionFactory factory = new LettuceConnectionFactory(
                        new RedisStandaloneConfiguration("127.0.0.1", server.port()));
                factory.afterPropertiesSet();
                factory.start();
                RedisComputeCache computeCache = RedisComputeCache.builder(factory).build();
                SingleFlightCaches singleFlight = new SingleFlightCaches(computeCache);
                closing.add(singleFlight);
                closing.add(computeCache);
                closing.add(factory::destroy);
                return singleFlight.wrap(new CaffeineCacheManager("quotes")).getCache("quotes");
            case "redisson":
                Config config = new Config();
                config.useSingleServer().setAddress(server.uri());
                RedissonClient client = Redisson.create(config);
                closing.add(client::shutdown);
                return new RedissonSpringCacheManager(client).getCache("quotes");
            default:
                throw new IllegalArgumentException(cache);
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        try {
            for (AutoCloseable resource : closing) {
                resource.close();
            }
        }
        finally {
            server.close();
        }
    }

    /** The stampede's callers, started and parked on the gate: thread {@code i} calls node {@code i % 2}. */
    @Setup(Level.Invocation)
    public void callers() throws InterruptedException {
        key = cache + "-" + stampedes++;
        loads.set(0);
        Callable<String> loader = () -> {
            loads.incrementAndGet();
            Thread.sleep(BenchmarkContext.COMPUTE_MILLIS);
            return "quote of " + key;
        };
        String stampedeKey = key;
        CountDownLatch ready = new CountDownLatch(THREADS);
        gate = new CountDownLatch(1);
        served = new CountDownLatch(THREADS);
        callers = new ArrayList<>(THREADS);
        for (int i = 0; i < THREADS; i++) {
            Cache node = nodes[i % nodes.length];
            Thread caller = new Thread(() -> {
                ready.countDown();
                try {
                    gate.await();
                    node.get(stampedeKey, loader);
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
    }

    /** One stampede, in ms: the runs of docs/benchmarks.md as defaults (3 forks, 2 + 5 iterations of 2 s). */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @Warmup(iterations = 2, time = 2)
    @Measurement(iterations = 5, time = 2)
    @Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
    public void stampede(Loads counted) throws InterruptedException {
        gate.countDown();
        served.await();
        counted.loads += loads.get();
        counted.stampedes++;
    }

    /** Prints each stampede's loads of the iteration, as the counters give only their sum. */
    @TearDown(Level.Iteration)
    public void printLoads() {
        System.out.println("loads per stampede of " + cache + ": " + loadsPerStampede);
        loadsPerStampede.clear();
    }

    @TearDown(Level.Invocation)
    public void joinCallers() throws InterruptedException {
        for (Thread caller : callers) {
            caller.join();
        }
        loadsPerStampede.add(loads.get());
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " callers of " + key + " failed");
        }
    }

    /** The loader calls and the stampedes of an iteration: their quotient is the loads per stampede. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Loads {

        public long loads;

        public long stampedes;

        @Setup(Level.Iteration)
        public void reset() {
            loads = 0;
            stampedes = 0;
        }
    }
}
