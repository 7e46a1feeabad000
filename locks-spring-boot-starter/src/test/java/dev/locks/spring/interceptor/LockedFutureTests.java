package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A {@code @Locked} method returning a future holds its locks until the future completes. */
class LockedFutureTests {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("locks.retries=0");

    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopOtherThread() {
        otherThread.shutdownNow();
    }

    @Test
    void locksShouldBeHeldUntilTheFutureCompletes() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = context.getBean(Jobs.class).later("k", work);
            assertThat(result).isNotDone();
            assertThat(registry.heldLock("k")).isPresent();
            assertThat(otherThread.submit(() -> registry.tryAcquire(List.of("k")).isPresent()).get()).isFalse();
            work.complete("done");
            assertThat(result).succeedsWithin(WAIT).isEqualTo("done");
            assertThat(registry.heldLocks()).isEmpty();
        });
    }

    @Test
    void leaseShouldBeDetachedFromTheCallingThreadOnceTheMethodReturns() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            context.getBean(Jobs.class).later("k", work);
            assertThat(registry.tryAcquire(List.of("k"))).isEmpty();
            work.complete("done");
        });
    }

    @Test
    void callerShouldFindTheLocksReleasedWhenItsFutureCompletes() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<List<?>> seen = context.getBean(Jobs.class).later("k", work)
                    .thenApply(value -> registry.heldLocks());
            otherThread.submit(() -> work.complete("done"));
            assertThat(seen).succeedsWithin(WAIT).isEqualTo(List.of());
        });
    }

    @Test
    void failedFutureShouldReachTheCallerAsIsAndReleaseTheLocks() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = context.getBean(Jobs.class).later("k", work);
            IOException failure = new IOException("disk full");
            work.completeExceptionally(failure);
            assertThat(result).failsWithin(WAIT).withThrowableOfType(ExecutionException.class).withCause(failure);
            assertThat(result.exceptionally(ex -> ex.getMessage()).join()).isEqualTo("disk full");
            assertThat(registry.heldLocks()).isEmpty();
        });
    }

    @Test
    void synchronousThrowShouldReleaseTheLocks() {
        runner.run(context -> {
            assertThatIllegalStateException().isThrownBy(() -> context.getBean(Jobs.class).failsAtOnce("k"));
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void nullFutureShouldReleaseTheLocks() {
        runner.run(context -> {
            assertThat(context.getBean(Jobs.class).later("k", null)).isNull();
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void completionStageShouldHoldItsLocksToo() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletionStage<String> result = context.getBean(Jobs.class).stage("k", work);
            assertThat(registry.heldLock("k")).isPresent();
            work.complete("done");
            assertThat(result.toCompletableFuture()).succeedsWithin(WAIT).isEqualTo("done");
            assertThat(registry.heldLocks()).isEmpty();
        });
    }

    @Test
    void cancellingTheCallersFutureShouldNotReleaseTheLocksOfRunningWork() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = context.getBean(Jobs.class).later("k", work);
            result.cancel(true);
            assertThat(registry.heldLock("k")).isPresent();
            work.complete("done");
            assertThat(registry.heldLocks()).isEmpty();
        });
    }

    @Test
    void bodyShouldSeeItsLeaseWhileItRuns() {
        runner.run(context -> assertThat(context.getBean(Jobs.class).leaseKeys("k"))
                .succeedsWithin(WAIT).isEqualTo(List.of("k")));
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {

        @Locked(keys = "#key")
        public CompletableFuture<String> later(String key, CompletableFuture<String> work) {
            return work;
        }

        @Locked(keys = "#key")
        public CompletionStage<String> stage(String key, CompletableFuture<String> work) {
            return work;
        }

        @Locked(keys = "#key")
        public CompletableFuture<String> failsAtOnce(String key) {
            throw new IllegalStateException("no");
        }

        @Locked(keys = "#key")
        public CompletableFuture<List<String>> leaseKeys(String key) {
            return CompletableFuture.completedFuture(Lease.current().orElseThrow().keys());
        }
    }
}
