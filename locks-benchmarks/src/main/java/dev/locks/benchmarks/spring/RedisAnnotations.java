package dev.locks.benchmarks.spring;

import dev.locks.benchmarks.redis.RedisServerProcess;
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
import org.openjdk.jmh.infra.ThreadParams;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code @Locked} on a {@code Mono} beside the blocking {@code @Locked} call, on Redis (issue 24's target: within
 * 1.5× of it): the same bean and SpEL key as {@link SpringAnnotations}, the starter on {@code locks.backend=redis}
 * against a {@code redis-server} of the fork's own. The reactive call acquires with {@code acquireAsync} (the
 * script on the native Lettuce connection, no thread of the registry's waiting for it) and releases without
 * blocking; the caller's {@code block()} waits for it. Each thread has a key of its own: nobody waits.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class RedisAnnotations {

    private RedisServerProcess server;
    private ConfigurableApplicationContext context;
    Accounts accounts;

    @Setup
    public void setUp() {
        server = RedisServerProcess.start();
        context = BenchmarkContext.start(new Class<?>[] {Connection.class}, "locks.backend=redis",
                "benchmark.redis.port=" + server.port());
        accounts = context.getBean(Accounts.class);
    }

    @TearDown
    public void tearDown() {
        context.close();
        server.close();
    }

    /** One caller: a key of its own. */
    @State(Scope.Thread)
    public static class Caller {
        String id;

        @Setup
        public void setUp(ThreadParams thread) {
            id = Integer.toString(1000 + thread.getThreadIndex());
        }
    }

    @Benchmark
    public Object locked(Caller caller) {
        return accounts.lockedBalance(caller.id);
    }

    @Benchmark
    public Object lockedMono(Caller caller) {
        return accounts.lockedMonoBalance(caller.id).block();
    }

    /** The application's Redis connection, as Spring Boot would make it: Lettuce, to the fork's server. */
    @Configuration(proxyBeanMethods = false)
    static class Connection {

        @Bean
        LettuceConnectionFactory redisConnectionFactory(@Value("${benchmark.redis.port}") int port) {
            return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        }
    }
}
