package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.LogCapture;
import dev.locks.spring.actuate.LocksMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @Locked(onTimeout = "skip")} on the in-memory backend: a call whose keys are not taken within its wait runs
 * nothing and returns the empty value of its return type, counted as {@code result=skipped} (never as
 * {@code timeout}), and logs nothing at {@code WARN} or {@code ERROR}.
 */
class SkipOnTimeoutTests {

    /** The methods of {@link Jobs} that skip, one per return shape. */
    private static final List<String> SHAPES = List.of("run", "value", "optional", "future", "mono", "flux");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, LocksMetricsAutoConfiguration.class))
            .withBean(Jobs.class);

    @Test
    void busyKeyShouldSkipEveryReturnShapeWithoutRunningTheBody() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (LogCapture logs = new LogCapture(LockedInterceptor.class.getName());
                    Lease held = heldElsewhere(context, "job")) {
                assertEveryShapeSkipsQuietly(jobs, logs);
                System.getLogger("dev.locks.probe").log(System.Logger.Level.WARNING, "probe");
                assertThat(logs.warnings()).as("the capture sees the library's System.Logger").hasSize(1);
            }
            assertEveryShapeCountedAsSkipped(context.getBean(MeterRegistry.class), "local");
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void freeKeyShouldRunEveryReturnShape() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            jobs.run();
            assertThat(jobs.value()).isEqualTo("ran");
            assertThat(jobs.optional()).contains("ran");
            assertThat(jobs.future().get(10, TimeUnit.SECONDS)).isEqualTo("ran");
            assertThat(jobs.mono().block(Duration.ofSeconds(10))).isEqualTo("ran");
            assertThat(jobs.flux().collectList().block(Duration.ofSeconds(10))).containsExactly("ran", "ran");

            assertThat(jobs.bodies()).isEqualTo(6);
            assertThat(context.getBean(MeterRegistry.class).get("locks.acquire").tags("name", "Jobs.value", "result",
                    "acquired").timer().count()).isOne();
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void skipShouldComeOnlyAfterTheWait() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor();
            try {
                Lease held = heldElsewhere(context, "job");
                releaser.schedule(held::close, 100, TimeUnit.MILLISECONDS);

                assertThat(jobs.patient()).as("the key freed within the wait: the body runs").isEqualTo("ran");
                assertThat(jobs.bodies()).isEqualTo(1);
            }
            finally {
                releaser.shutdownNow();
            }
        });
    }

    @Test
    void onTimeoutPropertyShouldBeTheDefaultAndTheAttributeShouldOverrideIt() {
        runner.withPropertyValues("locks.on-timeout=skip", "locks.wait-time=0", "locks.retries=0").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (Lease held = heldElsewhere(context, "job")) {
                assertThat(jobs.byDefault()).isNull();
                assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(jobs::throwing);
            }
            assertThat(jobs.bodies()).isEqualTo(0);
        });
    }

    @Test
    void withoutSkipATimeoutShouldStillThrowAndCountAsTimeout() {
        runner.withPropertyValues("locks.wait-time=0", "locks.retries=0").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (Lease held = heldElsewhere(context, "job")) {
                assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(jobs::byDefault);
            }
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("locks.acquire").tags("name", "Jobs.byDefault", "result", "timeout").timer().count())
                    .isOne();
            assertThat(meters.get("locks.acquire").tags("name", "Jobs.byDefault", "result", "skipped").timer().count())
                    .isZero();
        });
    }

    /** Calls every method of {@code jobs} while their key is busy: none runs, each returns its empty value. */
    static void assertEveryShapeSkipsQuietly(Jobs jobs, LogCapture logs) {
        jobs.run();
        assertThat(jobs.value()).isNull();
        assertThat(jobs.optional()).isEmpty();
        CompletableFuture<String> future = jobs.future();
        assertThat(future).isCompletedWithValue(null);
        assertThat(jobs.mono().blockOptional(Duration.ofSeconds(10))).isEmpty();
        assertThat(jobs.flux().collectList().block(Duration.ofSeconds(10))).isEmpty();

        assertThat(jobs.bodies()).isZero();
        assertThat(logs.warnings()).isEmpty();
        assertThat(logs.debug()).filteredOn(line -> line.contains("Skipped Jobs.")).hasSize(SHAPES.size());
    }

    /** Each call of {@link #assertEveryShapeSkipsQuietly} counted once as skipped, never as a timeout. */
    static void assertEveryShapeCountedAsSkipped(MeterRegistry meters, String backend) {
        for (String method : SHAPES) {
            assertThat(meters.get("locks.acquire").tags("name", "Jobs." + method, "result", "skipped", "backend",
                    backend).timer().count()).as(method).isOne();
            assertThat(meters.get("locks.acquire").tags("name", "Jobs." + method, "result", "timeout").timer().count())
                    .as(method).isZero();
        }
    }

    /** The key held by a lease of no thread, so that the test thread does not re-enter it. */
    static Lease heldElsewhere(AssertableApplicationContext context, String key) {
        Lease lease = context.getBean(LockRegistry.class).acquire(List.of(key));
        lease.detach();
        return lease;
    }

    static class Jobs {

        private final AtomicInteger bodies = new AtomicInteger();

        /** How many bodies ran (a method: the test holds the proxy). */
        public int bodies() {
            return bodies.get();
        }

        @Locked(keys = "'job'", waitTime = "0", onTimeout = "skip")
        public void run() {
            bodies.incrementAndGet();
        }

        @Locked(keys = "'job'", waitTime = "0", onTimeout = "skip")
        public String value() {
            bodies.incrementAndGet();
            return "ran";
        }

        @Locked(keys = "'job'", waitTime = "0", onTimeout = "skip")
        public Optional<String> optional() {
            bodies.incrementAndGet();
            return Optional.of("ran");
        }

        @Locked(keys = "'job'", waitTime = "0", onTimeout = "SKIP")
        public CompletableFuture<String> future() {
            bodies.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @Locked(keys = "'job'", waitTime = "0", onTimeout = "skip")
        public Mono<String> mono() {
            bodies.incrementAndGet();
            return Mono.just("ran");
        }

        @Locked(keys = "'job'", waitTime = "0", onTimeout = "skip")
        public Flux<String> flux() {
            bodies.incrementAndGet();
            return Flux.just("ran", "ran");
        }

        @Locked(keys = "'job'", waitTime = "10s", retries = "infinity", onTimeout = "skip")
        public String patient() {
            bodies.incrementAndGet();
            return "ran";
        }

        @Locked(keys = "'job'")
        public String byDefault() {
            bodies.incrementAndGet();
            return "ran";
        }

        @Locked(keys = "'job'", onTimeout = "throw")
        public String throwing() {
            bodies.incrementAndGet();
            return "ran";
        }
    }
}
