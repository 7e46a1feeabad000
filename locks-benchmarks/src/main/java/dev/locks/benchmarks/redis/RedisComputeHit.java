package dev.locks.benchmarks.redis;

import dev.locks.redis.RedisComputeCache;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.cache.Cache;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A cache hit on Redis, as throughput (hits per second, all threads together): one key, stored before the
 * measurement, read by every thread. This project's {@code RedisComputeCache.fetchOrCompute}; Spring's
 * {@code RedisCache.get(key, loader)} (what {@code @Cacheable(sync = true)} calls), on the same Lettuce
 * connection factory defaults and its default JDK serialization; and the floor, a raw Lettuce {@code GET} of
 * a string (no serializer). Each is one {@code GET} on the server per hit (the report counts them).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RedisComputeHit {

    static final String KEY = "account:1";
    static final Duration TTL = Duration.ofMinutes(10);
    private static final Supplier<String> COMPUTE = () -> "balance of account 1: 100.00";
    private static final Callable<String> LOAD = COMPUTE::get;

    @Benchmark
    public String thisProject(ThisProject redis) {
        return redis.cache.fetchOrCompute(KEY, TTL, COMPUTE);
    }

    @Benchmark
    public String springRedisCache(SpringRedisCache redis) {
        return redis.cache.get(KEY, LOAD);
    }

    @Benchmark
    public String floorGet(FloorGet redis) {
        return redis.commands.get(KEY);
    }

    /** This project's Redis compute cache, its defaults; the value computed once before the measurement. */
    public static class ThisProject extends RedisClients.WithServer {
        LettuceConnectionFactory factory;
        RedisComputeCache cache;

        @Override
        void open(RedisServerProcess server) {
            factory = connectionFactory(server);
            cache = RedisComputeCache.builder(factory).build();
            cache.fetchOrCompute(KEY, TTL, COMPUTE);
        }

        @Override
        void close() {
            cache.close();
            factory.destroy();
        }
    }

    /** Spring Data Redis's {@code RedisCache} with a TTL, from a {@code RedisCacheManager} with its defaults. */
    public static class SpringRedisCache extends RedisClients.WithServer {
        LettuceConnectionFactory factory;
        Cache cache;

        @Override
        void open(RedisServerProcess server) throws Exception {
            factory = connectionFactory(server);
            RedisCacheManager manager = RedisCacheManager.builder(factory)
                    .cacheDefaults(RedisCacheConfiguration.defaultCacheConfig().entryTtl(TTL)).build();
            manager.afterPropertiesSet();
            cache = manager.getCache("accounts");
            cache.get(KEY, LOAD);
        }

        @Override
        void close() {
            factory.destroy();
        }
    }

    /** The floor: a raw Lettuce {@code GET} of the value stored as a string (the lock floor's connection). */
    public static class FloorGet extends RedisClients.Floor {
        @Override
        void open(RedisServerProcess server) {
            super.open(server);
            commands.set(KEY, COMPUTE.get());
        }
    }
}
