package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.LockUnavailableException;
import dev.locks.redis.test.RedisServer;
import dev.locks.spring.actuate.LocksHealthContributorAutoConfiguration;
import dev.locks.spring.actuate.LocksHealthIndicator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code locks.redis.timeout} (SPEC 6 and 8): bound to the registry, the compute cache and the health check, so that
 * a Redis that stops answering (paused with SIGSTOP) under Spring Boot's default client settings (Lettuce's 60 s
 * command timeout) is a {@code DOWN} health within that timeout and a failed acquire within wait time plus it.
 */
class RedisTimeoutTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final Duration WAIT_TIME = Duration.ofSeconds(2);
    /** What a loaded machine may add; far below Lettuce's 60 s. */
    private static final Duration SLACK = Duration.ofSeconds(6);

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final RedisServer server = RedisServer.start();

    @AfterEach
    void stop() throws Exception {
        signal("CONT");
        threads.shutdownNow();
        server.close();
    }

    @Test
    void timeoutShouldDefaultToTwoSecondsAndBind() {
        runner().run(context -> assertThat(context.getBean(LocksProperties.class).getRedis().getTimeout())
                .isEqualTo(Duration.ofSeconds(2)));
        runner().withPropertyValues("locks.redis.timeout=750ms").run(context -> assertThat(
                context.getBean(LocksProperties.class).getRedis().getTimeout()).isEqualTo(Duration.ofMillis(750)));
    }

    @Test
    void aRedisThatStopsAnsweringShouldBeDownWithinTheTimeout() {
        runner().withPropertyValues("locks.redis.timeout=" + TIMEOUT.toMillis() + "ms").run(context -> {
            LocksHealthIndicator health = context.getBean(LocksHealthIndicator.class);
            LockRegistry registry = context.getBean(LockRegistry.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            registry.acquire(List.of("warm")).close();
            signal("STOP");

            long start = System.nanoTime();
            Future<Health> check = threads.submit(() -> health.health());
            assertThat(check).succeedsWithin(TIMEOUT.plus(SLACK))
                    .satisfies(down -> assertThat(down.getStatus()).isEqualTo(Status.DOWN));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plus(SLACK));

            Future<?> acquire = threads.submit(() -> registry.acquire(List.of("paused"),
                    AcquireOptions.defaults().withWaitTime(WAIT_TIME)));
            assertThat(acquire).failsWithin(WAIT_TIME.plus(TIMEOUT).plus(SLACK)).withThrowableThat().havingCause()
                    .isInstanceOf(LockUnavailableException.class);
        });
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port());
    }

    private void signal(String signal) throws Exception {
        if (server.isRunning()) {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(server.pid())).inheritIO().start();
            assertThat(kill.waitFor()).isZero();
        }
    }
}
