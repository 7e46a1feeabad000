package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Invalid {@code locks.*} values stop the application, with a message that names the property. */
class LocksStartupFailureTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void negativeRetryIntervalShouldFailNamingTheProperty() {
        assertInvalid("locks.retry-interval=-5ms", "locks.retry-interval", "Must be a duration >= 0.");
    }

    @Test
    void negativeWaitTimeShouldFailNamingTheProperty() {
        assertInvalid("locks.wait-time=-1s", "locks.wait-time", "Must be a duration >= 0.");
    }

    @Test
    void aWaitTimeThatIsNoDurationShouldFailNamingTheProperty() {
        assertInvalid("locks.wait-time=soon", "locks.wait-time", "'soon'");
    }

    @Test
    void negativeCleanupIntervalShouldFailNamingTheProperty() {
        assertInvalid("locks.cleanup.interval=-1m", "locks.cleanup.interval", "Must be a duration > 0.");
    }

    @Test
    void negativeCleanupIntervalShouldFailNamingThePropertyWithTheApplicationsRegistry() {
        assertInvalid(runner.withBean(RecordingLockRegistry.class), "locks.cleanup.interval=-1m",
                "locks.cleanup.interval", "Must be a duration > 0.");
    }

    @Test
    void negativeDefaultTtlShouldFailNamingTheProperty() {
        assertInvalid("locks.compute.default-ttl=-1s", "locks.compute.default-ttl", "Must be a duration >= 0.");
    }

    @Test
    void zeroBatchSizeShouldFailNamingTheProperty() {
        assertInvalid("locks.cleanup.batch-size=0", "locks.cleanup.batch-size", "Must be at least 1");
    }

    @Test
    void zeroComputeTimeoutShouldFailNamingTheProperty() {
        assertInvalid("locks.compute.timeout=0s", "locks.compute.timeout", "Must be a duration > 0.");
    }

    @Test
    void zeroMaxEntriesShouldFailNamingTheProperty() {
        assertInvalid("locks.compute.max-entries=0", "locks.compute.max-entries", "Must be at least 1");
    }

    @Test
    void zeroMaxBytesShouldFailNamingTheProperty() {
        assertInvalid("locks.compute.max-bytes=0", "locks.compute.max-bytes", "Must be at least 1B");
    }

    @Test
    void refreshAfterNotShorterThanTheDefaultTtlShouldFailNamingTheProperty() {
        assertInvalid(runner.withPropertyValues("locks.compute.default-ttl=5m"), "locks.compute.refresh-after=5m",
                "locks.compute.refresh-after", "refreshAfter (PT5M) must be shorter than ttl (PT5M)");
    }

    @Test
    void zeroStaleIfErrorShouldFailNamingTheProperty() {
        assertInvalid("locks.compute.stale-if-error=0s", "locks.compute.stale-if-error", "Must be a duration > 0.");
    }

    @Test
    void zeroErrorBackoffShouldFailNamingTheProperty() {
        assertInvalid("locks.compute.error-backoff=0s", "locks.compute.error-backoff", "Must be a duration > 0.");
    }

    @Test
    void zeroRefreshMaxConcurrentShouldFailNamingTheProperty() {
        assertInvalid("locks.compute.refresh.max-concurrent=0", "locks.compute.refresh.max-concurrent",
                "Must be at least 1");
    }

    @Test
    void badRetriesShouldFailNamingTheProperty() {
        assertInvalid("locks.retries=many", "locks.retries", "retries must be a whole number >= 0 or 'infinity'");
    }

    @Test
    void negativeRetriesShouldFailNamingTheProperty() {
        assertInvalid("locks.retries=-1", "locks.retries", "retries must be >= 0");
    }

    @Test
    void zeroLockTimeoutShouldFailNamingTheProperty() {
        assertInvalid("locks.lock-timeout=0s", "locks.lock-timeout", "lockTimeout must be a duration > 0");
    }

    @Test
    void tooShortRedisLeaseShouldFailNamingTheProperty() {
        assertInvalid("locks.redis.lease=0s", "locks.redis.lease", "at least 3ms");
    }

    @Test
    void nonPositiveRedisTimeoutShouldFailNamingTheProperty() {
        assertInvalid("locks.redis.timeout=-1s", "locks.redis.timeout", "Must be a duration > 0.");
        assertInvalid("locks.redis.timeout=0s", "locks.redis.timeout", "Must be a duration > 0.");
    }

    @Test
    void unknownBackendShouldFailNamingTheProperty() {
        assertInvalid("locks.backend=mongo", "locks.backend", "Must be 'local' or 'redis'");
    }

    @Test
    void redisBackendWithoutLocksRedisShouldFailSayingWhatToAdd() {
        runner.withClassLoader(new FilteredClassLoader("dev.locks.redis."))
                .withPropertyValues("locks.backend=redis")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = StartupFailures.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("'locks.backend' is 'redis'")
                            .contains("dev.locks.redis.RedisLockRegistry was not found");
                    assertThat(analysis.getAction()).contains("Add the dependency 'dev.locks:locks-redis'")
                            .contains("set 'locks.backend' to 'local'");
                });
    }

    @Test
    void explicitLocalBackendShouldStartWithoutRedis() {
        runner.withPropertyValues("locks.backend=LOCAL").run(context -> assertThat(context)
                .hasNotFailed()
                .hasSingleBean(dev.locks.local.LocalLockRegistry.class));
    }

    private void assertInvalid(String property, String name, String reason) {
        assertInvalid(runner, property, name, reason);
    }

    private static void assertInvalid(ApplicationContextRunner runner, String property, String name, String reason) {
        runner.withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(failure).hasRootCauseInstanceOf(InvalidConfigurationPropertyValueException.class);
            InvalidConfigurationPropertyValueException cause =
                    (InvalidConfigurationPropertyValueException) rootCause(failure);
            assertThat(cause.getName()).isEqualTo(name);
            assertThat(cause.getReason()).contains(reason);
            FailureAnalysis analysis = StartupFailures.analyze(failure);
            assertThat(analysis.getDescription())
                    .contains("for configuration property '" + name + "'")
                    .contains(reason);
        });
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
