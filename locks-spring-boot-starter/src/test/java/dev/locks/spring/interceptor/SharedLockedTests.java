package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.RecordingLockRegistry;
import dev.locks.spring.StartupFailures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @Locked(mode = "shared")} and {@code @Locked(permits = "2")}: the attributes reach the registry as
 * {@link AcquireOptions#shared()} and {@link AcquireOptions#withPermits(int)}, shared calls run together while
 * permits limit the calls that run at once, and bad values stop startup naming the method and the attribute.
 */
class SharedLockedTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void modeAndPermitsShouldReachTheRegistry() {
        RecordingLockRegistry registry = new RecordingLockRegistry(AcquireOptions.defaults());
        runner.withPropertyValues("app.limit=4").withBean(LockRegistry.class, () -> registry).withBean(Valid.class)
                .run(context -> {
                    Valid valid = context.getBean(Valid.class);
                    valid.read();
                    valid.limited();
                    valid.placeholder();
                    valid.exclusive();
                    assertThat(registry.options()).extracting(AcquireOptions::isShared)
                            .containsExactly(true, false, false, false);
                    assertThat(registry.options()).extracting(AcquireOptions::permits).containsExactly(1, 2, 4, 1);
                });
    }

    @Test
    void sharedCallsShouldRunTogetherAndPermitsShouldLimitThem() {
        runner.withBean(Gate.class).run(context -> {
            Gate gate = context.getBean(Gate.class);
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                CountDownLatch inside = new CountDownLatch(3);
                CountDownLatch leave = new CountDownLatch(1);
                List<Future<?>> readers = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    readers.add(pool.submit(() -> gate.read(inside, leave)));
                }
                assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue(); // all three hold the key shared at once
                assertThatThrownBy(gate::write).isInstanceOf(LockTimeoutException.class);
                leave.countDown();
                for (Future<?> reader : readers) {
                    reader.get(30, TimeUnit.SECONDS);
                }
                gate.write();

                CountDownLatch twoInside = new CountDownLatch(2);
                CountDownLatch twoLeave = new CountDownLatch(1);
                List<Future<?>> limited = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    limited.add(pool.submit(() -> gate.limited(twoInside, twoLeave)));
                }
                assertThat(twoInside.await(30, TimeUnit.SECONDS)).isTrue();
                CountDownLatch third = new CountDownLatch(1);
                assertThatThrownBy(() -> gate.limited(third, new CountDownLatch(0)))
                        .isInstanceOf(LockTimeoutException.class);
                assertThat(third.getCount()).isEqualTo(1); // its body never ran
                twoLeave.countDown();
                for (Future<?> call : limited) {
                    call.get(30, TimeUnit.SECONDS);
                }
                gate.limited(third, new CountDownLatch(0));
                assertThat(third.getCount()).isZero();
            } finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void unknownModeShouldStopStartupNamingTheAllowedValues() {
        FailureAnalysis analysis = failure(runner, UnknownMode.class);
        assertThat(analysis.getDescription()).contains("method 'run'").contains("Attribute: mode")
                .contains("Value: 'read'").contains("neither 'exclusive' nor 'shared'");
        assertThat(analysis.getAction()).contains("\"exclusive\"").contains("\"shared\"");
    }

    @Test
    void permitsThatAreNotAWholeNumberOfAtLeastOneShouldStopStartup() {
        assertThat(failure(runner, ZeroPermits.class).getDescription()).contains("method 'run'")
                .contains("Attribute: permits").contains("Value: '0'").contains("whole number >= 1");
        assertThat(failure(runner, TextPermits.class).getDescription()).contains("Attribute: permits")
                .contains("Value: 'many'");
        assertThat(failure(runner.withPropertyValues("app.limit=-3"), PlaceholderPermits.class).getDescription())
                .contains("Attribute: permits").contains("Value: '${app.limit}'");
    }

    @Test
    void sharedWithSeveralPermitsShouldStopStartupNamingBoth() {
        FailureAnalysis analysis = failure(runner, SharedWithPermits.class);
        assertThat(analysis.getDescription()).contains("method 'run'").contains("Attribute: permits")
                .contains("Value: '3'").contains("mode = 'shared'");
        assertThat(analysis.getAction()).contains("either");
    }

    private static FailureAnalysis failure(ApplicationContextRunner runner, Class<?> beanClass) {
        return StartupFailures.analyzeStartup(runner, beanClass, InvalidLocksAnnotationException.class);
    }

    static class Valid {

        @Locked(mode = "shared")
        public void read() {
        }

        @Locked(permits = "2")
        public void limited() {
        }

        @Locked(keys = "'tenant'", permits = "${app.limit}")
        public void placeholder() {
        }

        @Locked(mode = "exclusive")
        public void exclusive() {
        }
    }

    static class Gate {

        @Locked(keys = "'config'", mode = "shared", waitTime = "30s")
        public void read(CountDownLatch inside, CountDownLatch leave) {
            inside.countDown();
            try {
                leave.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Locked(keys = "'config'", retries = "0")
        public void write() {
        }

        @Locked(keys = "'tenant:1'", permits = "2", retries = "0")
        public void limited(CountDownLatch inside, CountDownLatch leave) {
            inside.countDown();
            try {
                leave.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static class UnknownMode {

        @Locked(mode = "read")
        public void run() {
        }
    }

    static class ZeroPermits {

        @Locked(permits = "0")
        public void run() {
        }
    }

    static class TextPermits {

        @Locked(permits = "many")
        public void run() {
        }
    }

    static class PlaceholderPermits {

        @Locked(permits = "${app.limit}")
        public void run() {
        }
    }

    static class SharedWithPermits {

        @Locked(mode = "shared", permits = "3")
        public void run() {
        }
    }
}
