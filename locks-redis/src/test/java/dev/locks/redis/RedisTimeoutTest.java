package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockUnavailableException;
import dev.locks.redis.test.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * SPEC 8, "Bounded round trips": a Redis that stops answering (its process paused with SIGSTOP: the connection
 * stays open, nothing replies), under Lettuce's default client settings (a 60-second command timeout), fails
 * calls within {@code waitTime + locks.redis.timeout} and {@link RedisLockRegistry#ping()} within
 * {@code locks.redis.timeout}, not after a minute or two (issue 27: 120 s for an acquire, 60 s for health).
 */
class RedisTimeoutTest {

    private static final Duration WAIT_TIME = Duration.ofSeconds(3);
    /** What a loaded machine may add; far below Lettuce's 60 s. */
    private static final Duration SLACK = Duration.ofSeconds(6);

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private RedisServer server;
    private LettuceConnectionFactory factory;

    @BeforeEach
    void start() {
        server = RedisServer.start();
        factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
        factory.afterPropertiesSet(); // the client's defaults: a 60-second command timeout
    }

    @AfterEach
    void stop() throws Exception {
        signal("CONT");
        threads.shutdownNow();
        factory.destroy();
        server.close();
    }

    @Test
    void aRedisThatStopsAnsweringShouldFailEveryCallWithinItsWaitTimePlusTheTimeout() throws Exception {
        Duration timeout = RedisLockRegistry.DEFAULT_TIMEOUT;
        try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).build();
                RedisComputeCache cache = RedisComputeCache.builder(factory).build()) {
            registry.acquire(List.of("warm")).close();
            cache.fetchOrCompute("warm", Duration.ofMinutes(1), () -> "v");
            Lease held = registry.acquire(List.of("held"));
            signal("STOP");

            Future<?> acquire = threads.submit(() -> registry.acquire(List.of("paused"),
                    AcquireOptions.defaults().withWaitTime(WAIT_TIME)));
            assertThat(acquire).as("acquire").failsWithin(WAIT_TIME.plus(timeout).plus(SLACK)).withThrowableThat()
                    .havingCause().isInstanceOf(LockUnavailableException.class);

            Future<?> compute = threads.submit(() -> cache.fetchOrCompute("k", Duration.ofMinutes(1), () -> "v"));
            assertThat(compute).as("fetchOrCompute").failsWithin(timeout.plus(SLACK)).withThrowableThat()
                    .havingCause().isInstanceOf(LockUnavailableException.class);

            long start = System.nanoTime();
            Future<?> release = threads.submit(held::close);
            assertThat(release).as("release").succeedsWithin(timeout.plus(SLACK));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("release").isLessThan(timeout.plus(SLACK));

            signal("CONT");
            await().atMost(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                    .until(() -> registry.tryAcquire(List.of("after-pause")).map(lease -> {
                        lease.close();
                        return true;
                    }).orElse(false));
        }
    }

    @Test
    void pingShouldAnswerWithinTheTimeoutWhenRedisDoesNotAnswer() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).timeout(timeout).build()) {
            registry.ping();
            signal("STOP");

            long start = System.nanoTime();
            Future<?> ping = threads.submit(registry::ping);
            assertThat(ping).failsWithin(timeout.plus(SLACK)).withThrowableThat().havingCause()
                    .isInstanceOf(LockUnavailableException.class).withMessageContaining("locks.redis.timeout");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(timeout.plus(SLACK));

            signal("CONT");
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(registry::ping);
        }
    }

    private void signal(String signal) throws Exception {
        if (server != null && server.isRunning()) {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(server.pid())).inheritIO().start();
            assertThat(kill.waitFor()).isZero();
        }
    }
}
