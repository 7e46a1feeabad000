package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockUnavailableException;
import dev.locks.redis.RedisLockRegistry;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.LogCapture;
import dev.locks.spring.actuate.LocksMetricsAutoConfiguration;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @Locked(onTimeout = "skip")} on two nodes sharing one redis-server: a call on one node while the other
 * holds the key skips quietly on every return shape; an outage is never skipped.
 */
class RedisSkipOnTimeoutTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private ApplicationContextRunner node() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class,
                        MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                        LocksMetricsAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=500ms", "spring.data.redis.connect-timeout=500ms",
                        "locks.redis.timeout=500ms")
                .withBean(LettuceClientOptionsBuilderCustomizer.class,
                        () -> options -> options.disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS))
                .withBean(SkipOnTimeoutTests.Jobs.class);
    }

    @Test
    void keyHeldByTheOtherNodeShouldSkipEveryReturnShapeQuietly() {
        node().run(first -> node().run(second -> {
            assertThat(second.getBean(LockRegistry.class)).isInstanceOf(RedisLockRegistry.class);
            SkipOnTimeoutTests.Jobs jobs = second.getBean(SkipOnTimeoutTests.Jobs.class);
            try (LogCapture logs = new LogCapture(LockedInterceptor.class.getName());
                    Lease held = first.getBean(LockRegistry.class).acquire(List.of("job"))) {
                SkipOnTimeoutTests.assertEveryShapeSkipsQuietly(jobs, logs);
            }
            SkipOnTimeoutTests.assertEveryShapeCountedAsSkipped(second.getBean(MeterRegistry.class), "redis");

            assertThat(jobs.value()).as("the other node released the key").isEqualTo("ran");
            assertThat(jobs.mono().block(Duration.ofSeconds(10))).isEqualTo("ran");
            assertThat(jobs.bodies()).isEqualTo(2);
            assertThat(first.getBean(LockRegistry.class).heldLocks()).isEmpty();
        }));
    }

    @Test
    void outageShouldThrowEvenWhenATimeoutWouldSkip() {
        node().run(context -> {
            SkipOnTimeoutTests.Jobs jobs = context.getBean(SkipOnTimeoutTests.Jobs.class);
            assertThat(jobs.value()).isEqualTo("ran");

            redis.server().stop();

            assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(jobs::value);
            assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(jobs::run);
            assertThatExceptionOfType(LockUnavailableException.class)
                    .isThrownBy(() -> jobs.mono().block(Duration.ofSeconds(10)));
            assertThatExceptionOfType(LockUnavailableException.class)
                    .isThrownBy(() -> jobs.flux().collectList().block(Duration.ofSeconds(10)));
            assertThat(jobs.bodies()).isOne();
            assertThat(context.getBean(MeterRegistry.class).get("locks.acquire").tags("name", "Jobs.value", "result",
                    "skipped").timer().count()).isZero();
        });
    }
}
