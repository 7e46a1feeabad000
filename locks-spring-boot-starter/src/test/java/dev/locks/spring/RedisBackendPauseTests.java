package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.ComputeCache;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Redis-backed context that is paused and restarted, as Spring Framework 7's test context cache does, or
 * stopped and started (issue 11, observation 5): its backend works again afterwards, and closes only when the
 * context closes.
 */
class RedisBackendPauseTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port());

    @Test
    void pausedAndRestartedContextShouldStillLockAndWakeWaiters() {
        afterRestart(ConfigurableApplicationContext::pause, ConfigurableApplicationContext::restart);
    }

    @Test
    void stoppedAndStartedContextShouldStillLockAndWakeWaiters() {
        afterRestart(ConfigurableApplicationContext::stop, ConfigurableApplicationContext::start);
    }

    @Test
    void closedContextShouldCloseTheBackend() {
        LockRegistry[] registry = new LockRegistry[1];
        runner.run(context -> registry[0] = context.getBean(LockRegistry.class));

        assertThatIllegalStateException().isThrownBy(() -> registry[0].acquire(List.of("after-close")));
    }

    /**
     * Until the waiter's first attempt has failed, so that it waits for the release notice: a failed attempt
     * queues its ticket in Redis ({@code <prefix>queue:<key>}).
     */
    private static void awaitWaiting(CompletableFuture<Lease> waiter) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Long.valueOf(1).equals(redis.server().command("EXISTS", "locks:queue:after")));
        assertThat(waiter).isNotDone();
    }

    private void afterRestart(Consumer<ConfigurableApplicationContext> pause,
            Consumer<ConfigurableApplicationContext> restart) {
        runner.run(context -> {
            ConfigurableApplicationContext source = context.getSourceApplicationContext();
            LockRegistry registry = context.getBean(LockRegistry.class);
            registry.acquire(List.of("before")).close();

            pause.accept(source);
            restart.accept(source);

            registry.acquire(List.of("after")).close();
            assertThat(context.getBean(ComputeCache.class).fetchOrCompute("after", Duration.ofMinutes(1), () -> "v"))
                    .isEqualTo("v");
            runner.run(otherNode -> {
                Lease held = otherNode.getBean(LockRegistry.class).acquire(List.of("after"));
                // a waiter with a long retry interval is on time only if its node's subscription hears the release
                CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> registry.acquire(
                        List.of("after"), AcquireOptions.defaults().withRetries(1)
                                .withRetryInterval(Duration.ofSeconds(30))));
                awaitWaiting(waiter);
                held.close();
                try (Lease next = waiter.get(20, TimeUnit.SECONDS)) {
                    assertThat(next.isHeld()).isTrue();
                }
            });
        });
    }
}
