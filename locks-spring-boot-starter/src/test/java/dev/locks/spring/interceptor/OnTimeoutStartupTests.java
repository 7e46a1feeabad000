package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.RecordingLockRegistry;
import dev.locks.spring.StartupFailures;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code onTimeout} and {@code holdAtLeast} of {@code @Locked} are checked at startup like the other attributes: an
 * unknown mode, a skip that a primitive return type cannot return, a holdAtLeast longer than the lockTimeout (the
 * attribute's or the property's) stop the application naming the method.
 */
class OnTimeoutStartupTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void primitiveReturnTypeWithSkipShouldStopStartupNamingTheMethod() {
        FailureAnalysis analysis = failure(runner, PrimitiveSkip.class);
        assertThat(analysis.getDescription()).contains("@Locked annotation of method 'count'")
                .contains("Method: OnTimeoutStartupTests.PrimitiveSkip.count()")
                .contains("Attribute: onTimeout")
                .contains("it returns int, and a skipped call returns null");
        assertThat(analysis.getAction()).contains("Integer").contains("onTimeout = \"throw\"");
    }

    @Test
    void skipByPropertyShouldStopStartupOnAPrimitiveReturnTypeToo() {
        FailureAnalysis analysis = failure(runner.withPropertyValues("locks.on-timeout=skip"), PrimitiveDefault.class);
        assertThat(analysis.getDescription()).contains("method 'ready'")
                .contains("skip (locks.on-timeout)")
                .contains("it returns boolean");
    }

    @Test
    void unknownOnTimeoutShouldStopStartupNamingTheMethodAndTheAllowedValues() {
        FailureAnalysis analysis = failure(runner, UnknownMode.class);
        assertThat(analysis.getDescription()).contains("method 'run'")
                .contains("Attribute: onTimeout")
                .contains("Value: 'ignore'")
                .contains("neither 'throw' nor 'skip'");
        assertThat(analysis.getAction()).contains("\"throw\"").contains("\"skip\"").contains("locks.on-timeout");
    }

    @Test
    void onTimeoutPlaceholderShouldBeResolved() {
        runner.withPropertyValues("app.on-timeout=skip").withBean(PlaceholderMode.class)
                .run(context -> assertThat(context).hasNotFailed());
        FailureAnalysis analysis = failure(runner.withPropertyValues("app.on-timeout=later"), PlaceholderMode.class);
        assertThat(analysis.getDescription()).contains("Value: '${app.on-timeout}'").contains("neither");
    }

    @Test
    void holdAtLeastLongerThanLockTimeoutShouldStopStartupNamingBoth() {
        FailureAnalysis analysis = failure(runner, HoldLongerThanTimeout.class);
        assertThat(analysis.getDescription()).contains("method 'report'")
                .contains("Attribute: holdAtLeast")
                .contains("Value: '2m'")
                .contains("holdAtLeast (PT2M)")
                .contains("lockTimeout (PT1M)");
    }

    @Test
    void holdAtLeastLongerThanTheLockTimeoutPropertyShouldStopStartupNamingBoth() {
        FailureAnalysis analysis = failure(runner.withPropertyValues("locks.lock-timeout=10s"), HoldOnly.class);
        assertThat(analysis.getDescription()).contains("method 'report'")
                .contains("Attribute: holdAtLeast")
                .contains("holdAtLeast (PT20S)")
                .contains("lockTimeout (PT10S)");
        assertThat(analysis.getAction()).contains("locks.lock-timeout");
    }

    @Test
    void lockTimeoutShorterThanTheHoldAtLeastPropertyShouldStopStartupNamingBoth() {
        FailureAnalysis analysis = failure(runner.withPropertyValues("locks.hold-at-least=20s"), TimeoutOnly.class);
        assertThat(analysis.getDescription()).contains("method 'report'")
                .contains("Attribute: lockTimeout")
                .contains("holdAtLeast (PT20S)")
                .contains("lockTimeout (PT5S)")
                .contains("locks.hold-at-least");
    }

    @Test
    void invalidHoldAtLeastShouldStopStartupNamingTheAttribute() {
        FailureAnalysis analysis = failure(runner, NegativeHold.class);
        assertThat(analysis.getDescription()).contains("Attribute: holdAtLeast").contains("Value: '-1s'")
                .contains("holdAtLeast");
    }

    @Test
    void holdAtLeastAndLockTimeoutShouldReachTheRegistryTogether() {
        RecordingLockRegistry registry = new RecordingLockRegistry(AcquireOptions.defaults());
        runner.withPropertyValues("app.hold=45s", "locks.lock-timeout=30s")
                .withBean(LockRegistry.class, () -> registry)
                .withBean(Valid.class)
                .run(context -> {
                    Valid valid = context.getBean(Valid.class);
                    valid.longJob();
                    valid.holdOnly();
                    valid.timeoutOnly();
                    assertThat(registry.options()).extracting(AcquireOptions::holdAtLeast)
                            .containsExactly(Duration.ofSeconds(45), Duration.ofSeconds(5), Duration.ZERO);
                    assertThat(registry.options()).extracting(options -> options.lockTimeout().orElseThrow())
                            .containsExactly(Duration.ofMinutes(1), Duration.ofSeconds(30), Duration.ofSeconds(2));
                });
    }

    private static FailureAnalysis failure(ApplicationContextRunner runner, Class<?> beanClass) {
        return StartupFailures.analyzeStartup(runner, beanClass, InvalidLocksAnnotationException.class);
    }

    static class PrimitiveSkip {

        @Locked(waitTime = "0", onTimeout = "skip")
        public int count() {
            return 1;
        }
    }

    static class PrimitiveDefault {

        @Locked
        public boolean ready() {
            return true;
        }
    }

    static class UnknownMode {

        @Locked(onTimeout = "ignore")
        public void run() {
        }
    }

    static class PlaceholderMode {

        @Locked(onTimeout = "${app.on-timeout}")
        public void run() {
        }
    }

    static class HoldLongerThanTimeout {

        @Locked(lockTimeout = "1m", holdAtLeast = "2m")
        public void report() {
        }
    }

    static class HoldOnly {

        @Locked(holdAtLeast = "20s")
        public void report() {
        }
    }

    static class TimeoutOnly {

        @Locked(lockTimeout = "5s")
        public void report() {
        }
    }

    static class NegativeHold {

        @Locked(holdAtLeast = "-1s")
        public void report() {
        }
    }

    static class Valid {

        /** Longer than locks.lock-timeout, with a lockTimeout of its own that is longer still. */
        @Locked(lockTimeout = "1m", holdAtLeast = "${app.hold}")
        public void longJob() {
        }

        @Locked(holdAtLeast = "5s")
        public void holdOnly() {
        }

        @Locked(lockTimeout = "2s")
        public void timeoutOnly() {
        }
    }
}
