package dev.locks.spring.cleanup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.RecordingLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.config.ScheduledTaskHolder;
import org.springframework.scheduling.config.TaskManagementConfigUtils;

/**
 * The sweeper runs every {@code locks.cleanup.interval}, whether or not the application enables
 * scheduling, and the starter never starts the application's own {@code @Scheduled} methods.
 */
class LocksSweeperSchedulingTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, TaskSchedulingAutoConfiguration.class))
            .withPropertyValues("locks.cleanup.interval=20ms");

    @Test
    void withoutApplicationSchedulingTheSweeperShouldRunAloneOnItsOwnThread() {
        runner.withUserConfiguration(RecordingRegistry.class, ApplicationJob.class).run(context -> {
            assertThat(context).hasSingleBean(LocksSweeperScheduler.class)
                    .doesNotHaveBean(TaskManagementConfigUtils.SCHEDULED_ANNOTATION_PROCESSOR_BEAN_NAME);
            RecordingLockRegistry registry = context.getBean(RecordingLockRegistry.class);
            await().atMost(WAIT).until(() -> registry.sweeps() >= 3);
            assertThat(context.getBean(ApplicationJob.class).runs.get()).isZero();
            assertThat(Thread.getAllStackTraces().keySet()).anyMatch(
                    thread -> thread.getName().startsWith("locks-sweeper-") && thread.isDaemon());
        });
    }

    @Test
    void withApplicationSchedulingItsSchedulerShouldRunTheSweeperOnce() {
        runner.withUserConfiguration(RecordingRegistry.class, ApplicationJob.class, ApplicationScheduling.class)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(LocksSweeperScheduler.class);
                    RecordingLockRegistry registry = context.getBean(RecordingLockRegistry.class);
                    await().atMost(WAIT).until(() -> registry.sweeps() >= 3);
                    await().atMost(WAIT).until(() -> context.getBean(ApplicationJob.class).runs.get() >= 1);
                    long sweeperTasks = context.getBean(ScheduledTaskHolder.class).getScheduledTasks().stream()
                            .filter(task -> task.toString().contains(LocksSweeper.class.getName() + ".sweep"))
                            .count();
                    assertThat(sweeperTasks).isOne();
                });
    }

    @Test
    void lazyInitializationShouldNotStopTheSweeper() {
        runner.withInitializer(context -> context.addBeanFactoryPostProcessor(
                        new LazyInitializationBeanFactoryPostProcessor()))
                .withUserConfiguration(RecordingRegistry.class)
                .run(context -> {
                    RecordingLockRegistry registry = context.getBean(RecordingLockRegistry.class);
                    await().atMost(WAIT).until(() -> registry.sweeps() >= 1);
                });
    }

    @Test
    void sweeperShouldRemoveStaleLocksOfTheRealRegistry() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            ExecutorService owner = Executors.newSingleThreadExecutor();
            try {
                Lease lease = owner.submit(() -> registry.acquire(List.of("stale"),
                        AcquireOptions.defaults().withLockTimeout(Duration.ofMillis(1)))).get();
                await().atMost(WAIT).until(() -> registry.heldLocks().isEmpty());
                assertThat(lease.isHeld()).isFalse();
            }
            finally {
                owner.shutdownNow();
            }
        });
    }

    @Test
    void cleanupDisabledShouldScheduleNothing() {
        runner.withUserConfiguration(ApplicationScheduling.class).withPropertyValues("locks.cleanup.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(LocksSweeper.class).doesNotHaveBean(LocksSweeperScheduler.class);
                    assertThat(context.getBean(ScheduledTaskHolder.class).getScheduledTasks()).isEmpty();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class RecordingRegistry {

        @Bean
        RecordingLockRegistry recordingLockRegistry() {
            return new RecordingLockRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class ApplicationScheduling {
    }

    static class ApplicationJob {

        final AtomicInteger runs = new AtomicInteger();

        @Scheduled(fixedDelay = 10)
        void tick() {
            runs.incrementAndGet();
        }
    }

}
