package dev.locks.benchmarks.redis;

import dev.locks.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.infra.ThreadParams;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A lock cycle on a Redis Cluster of 3 masters ({@link RedisClusterProcess}), 1 or 5 keys acquired together
 * and released, as throughput (cycles per second, all threads together), this project beside Redisson's
 * {@code RLock} and {@code RedissonMultiLock} on the same cluster. Each thread has keys of its own, the 5 in 5
 * different slots (so this project takes 5 round trips to acquire, one per slot, and 5 to release; Redisson
 * one per lock each way). Run with 1 and 4 threads ({@code -t}); warm-up as {@link RedisLocks}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RedisClusterLocks {

    @Param({"1", "5"})
    public int keyCount;

    /** One caller: its keys, each in a slot of its own. */
    @State(Scope.Thread)
    public static class Caller {
        List<String> keys;
        String[] keyArray;

        @Setup
        public void setUp(ThreadParams thread, RedisClusterLocks benchmark) {
            List<String> mine = new ArrayList<>();
            for (int i = 0; i < benchmark.keyCount; i++) {
                mine.add("t" + thread.getThreadIndex() + ":account:" + (1000 + i));
            }
            long slots = mine.stream().map(key -> ClusterSlotHashUtil.calculateSlot("locks:lock:" + key)).distinct()
                    .count();
            if (slots != mine.size()) {
                throw new IllegalStateException("the keys share slots: " + mine);
            }
            keys = List.copyOf(mine);
            keyArray = mine.toArray(new String[0]);
            Arrays.sort(keyArray);
        }
    }

    /** A cluster for the trial, and the client {@link #open} makes on it. */
    @State(Scope.Benchmark)
    public abstract static class WithCluster {
        private RedisClusterProcess cluster;

        @Setup(Level.Trial)
        public final void start() throws Exception {
            cluster = RedisClusterProcess.start();
            open(cluster);
        }

        @TearDown(Level.Trial)
        public final void stop() throws Exception {
            try {
                close();
            } finally {
                cluster.close();
            }
        }

        abstract void open(RedisClusterProcess cluster) throws Exception;

        abstract void close() throws Exception;
    }

    /** This project's Redis registry on a Lettuce cluster factory, its defaults (sharded notices), no sweep. */
    public static class ThisProject extends WithCluster {
        LettuceConnectionFactory factory;
        dev.locks.redis.RedisLockRegistry registry;

        @Override
        void open(RedisClusterProcess cluster) {
            factory = new LettuceConnectionFactory(new RedisClusterConfiguration(
                    cluster.ports().stream().map(port -> "127.0.0.1:" + port).toList()));
            factory.afterPropertiesSet();
            factory.start();
            registry = dev.locks.redis.RedisLockRegistry.builder(factory).cleanupInterval(Duration.ZERO).build();
        }

        @Override
        void close() {
            registry.close();
            factory.destroy();
        }
    }

    /** Redisson on the cluster, with its defaults. */
    public static class RedissonState extends WithCluster {
        RedissonClient client;

        @Override
        void open(RedisClusterProcess cluster) {
            Config config = new Config();
            config.useClusterServers().addNodeAddress(cluster.uris().toArray(new String[0]));
            client = Redisson.create(config);
        }

        @Override
        void close() {
            client.shutdown();
        }
    }

    @Benchmark
    public long thisProject(ThisProject redis, Caller caller) {
        try (Lease lease = redis.registry.acquire(caller.keys)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public boolean redisson(RedissonState redis, Caller caller) {
        RLock lock;
        if (caller.keyArray.length == 1) {
            lock = redis.client.getLock(caller.keyArray[0]);
        } else {
            RLock[] locks = new RLock[caller.keyArray.length];
            for (int i = 0; i < locks.length; i++) {
                locks[i] = redis.client.getLock(caller.keyArray[i]);
            }
            lock = redis.client.getMultiLock(locks);
        }
        lock.lock(RedisClients.LEASE.toMillis(), TimeUnit.MILLISECONDS);
        lock.unlock();
        return true;
    }
}
