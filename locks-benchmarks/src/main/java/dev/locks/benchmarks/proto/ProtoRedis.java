package dev.locks.benchmarks.proto;

import dev.locks.Lease;
import dev.locks.benchmarks.redis.RedisServerProcess;
import dev.locks.redis.RedisLockRegistry;
import java.lang.reflect.Field;
import java.time.Duration;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Prototype of one Redis client change, measured on today's registry: its store's {@code StringRedisTemplate}
 * with {@code setExposeConnection(true)} (set here by reflection, which only a prototype may do), so that
 * every script call stops wrapping the connection in a new JDK proxy. Same registry, same scripts, same server,
 * 4 threads by default.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(4)
@State(Scope.Benchmark)
public class ProtoRedis {

    @Param({"false", "true"})
    public boolean exposeConnection;

    private RedisServerProcess server;
    private LettuceConnectionFactory factory;
    private RedisLockRegistry registry;

    @Setup(Level.Trial)
    public void setUp() throws ReflectiveOperationException {
        server = RedisServerProcess.start();
        factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
        factory.afterPropertiesSet();
        factory.start();
        registry = RedisLockRegistry.builder(factory).cleanupInterval(Duration.ZERO).build();
        if (exposeConnection) {
            Object store = field(registry, RedisLockRegistry.class, "store");
            ((StringRedisTemplate) field(store, store.getClass(), "redis")).setExposeConnection(true);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        registry.close();
        factory.destroy();
        server.close();
    }

    /** One caller's key. */
    @State(Scope.Thread)
    public static class Caller {
        List<String> keys;

        @Setup
        public void setUp(ThreadParams thread) {
            keys = List.of("t" + thread.getThreadIndex() + ":account:1000");
        }
    }

    @Benchmark
    public long thisProject(Caller caller) {
        try (Lease lease = registry.acquire(caller.keys)) {
            return lease.fencingToken();
        }
    }

    private static Object field(Object target, Class<?> type, String name) throws ReflectiveOperationException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
    }
}
