package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LockRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code locks.hold-at-least} and {@code locks.on-timeout} (SPEC 6): defaults of every {@code @Locked} call, in the
 * generated metadata, and checked at startup naming the property.
 */
class ScheduledJobPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void holdAtLeastShouldDefaultToZeroAndReachTheRegistrysDefaults() {
        runner.run(context -> assertThat(context.getBean(LockRegistry.class).defaultOptions().holdAtLeast())
                .isZero());
        runner.withPropertyValues("locks.hold-at-least=5s").run(context -> assertThat(
                context.getBean(LockRegistry.class).defaultOptions().holdAtLeast()).isEqualTo(Duration.ofSeconds(5)));
    }

    @Test
    void onTimeoutShouldDefaultToThrowAndBindEitherValue() {
        runner.run(context -> assertThat(context.getBean(LocksProperties.class).getOnTimeout())
                .isEqualTo(LocksProperties.OnTimeout.THROW));
        runner.withPropertyValues("locks.on-timeout=skip").run(context -> assertThat(
                context.getBean(LocksProperties.class).getOnTimeout()).isEqualTo(LocksProperties.OnTimeout.SKIP));
    }

    @Test
    void negativeHoldAtLeastShouldFailNamingTheProperty() {
        assertInvalid("locks.hold-at-least=-1s", "Must be a duration >= 0.");
    }

    @Test
    void holdAtLeastLongerThanTheLockTimeoutShouldFailNamingBothProperties() {
        assertInvalid("locks.hold-at-least=1m", "Must not be longer than locks.lock-timeout (30s)");
        runner.withPropertyValues("locks.hold-at-least=1m", "locks.lock-timeout=infinity")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void unknownOnTimeoutShouldFailNamingThePropertyAndTheValues() {
        runner.withPropertyValues("locks.on-timeout=ignore").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = StartupFailures.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("locks.on-timeout").contains("ignore");
            assertThat(analysis.getAction()).containsIgnoringCase("throw").containsIgnoringCase("skip");
        });
    }

    @Test
    void metadataShouldDescribeBothProperties() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            String metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(metadata).contains("\"name\": \"locks.hold-at-least\"").contains("\"name\": \"locks.on-timeout\"")
                    .contains("ShedLock's lockAtLeastFor").contains("'skip' the method");
        }
    }

    private void assertInvalid(String property, String reason) {
        runner.withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(InvalidConfigurationPropertyValueException.class);
            FailureAnalysis analysis = StartupFailures.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("for configuration property 'locks.hold-at-least'")
                    .contains(reason);
        });
    }
}
