package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import io.micrometer.observation.Observation;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The observation {@code locks.acquire} of an annotated call carries its {@code result} (SPEC 7): a call that skips
 * ({@code onTimeout = "skip"}) is {@code skipped} and no error, a timeout is {@code timeout} with its exception.
 */
class AcquireObservationResultTests {

    private final AnnotatedCallInstrumentationTests.Recorder recorder = new AnnotatedCallInstrumentationTests.Recorder();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, LocksMetricsAutoConfiguration.class,
                    LocksObservationAutoConfiguration.class, ObservationAutoConfiguration.class))
            .withBean(AnnotatedCallInstrumentationTests.Recorder.class, () -> recorder)
            .withBean(Job.class);

    @Test
    void eachWaitShouldCarryHowItEnded() {
        runner.run(context -> {
            Job job = context.getBean(Job.class);
            job.skipping();
            assertThat(result()).isEqualTo("acquired");
            assertThat(recorder.stopped.get("locks.acquire").getError()).isNull();

            Lease held = context.getBean(LockRegistry.class).acquire(List.of("job"));
            held.detach();
            try (held) {
                assertThat(job.skipping()).isNull();
                assertThat(result()).isEqualTo("skipped");
                assertThat(recorder.stopped.get("locks.acquire").getError()).as("a skip is no error").isNull();

                assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(job::throwing);
                assertThat(result()).isEqualTo("timeout");
                assertThat(recorder.stopped.get("locks.acquire").getError()).isInstanceOf(LockTimeoutException.class);
            }
        });
    }

    private String result() {
        Observation.Context context = recorder.stopped.get("locks.acquire");
        return context.getLowCardinalityKeyValue("result").getValue();
    }

    static class Job {

        @Locked(keys = "'job'", waitTime = "0", onTimeout = "skip")
        public String skipping() {
            return "ran";
        }

        @Locked(keys = "'job'", waitTime = "0")
        public String throwing() {
            return "ran";
        }
    }
}
