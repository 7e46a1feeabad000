package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LocksObserver;
import dev.locks.local.LocalComputeCache;
import dev.locks.local.LocalLockRegistry;
import dev.locks.spring.cleanup.LocksSweeper;
import dev.locks.spring.cleanup.LocksSweeperScheduler;
import dev.locks.spring.interceptor.FetchOrComputeAdvisor;
import dev.locks.spring.interceptor.FetchOrComputeInterceptor;
import dev.locks.spring.interceptor.LockedAdvisor;
import dev.locks.spring.interceptor.LockedInterceptor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

@ExtendWith(OutputCaptureExtension.class)
class LocksAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void defaultsShouldProvideTheLocalBackendInterceptorsAndSweeper() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(LocalLockRegistry.class)
                    .hasSingleBean(ComputeCache.class)
                    .hasSingleBean(LockedAdvisor.class)
                    .hasSingleBean(FetchOrComputeAdvisor.class)
                    .hasSingleBean(LocksSweeper.class)
                    .hasSingleBean(LocksSweeperScheduler.class);
            LockRegistry registry = context.getBean(LockRegistry.class);
            assertThat(registry.backend()).isEqualTo("local");
            assertThat(registry.defaultOptions()).isEqualTo(AcquireOptions.defaults().withInfiniteRetries()
                    .withWaitTime(Duration.ofSeconds(10)));
            assertThat(context.getBean(ComputeCache.class).defaultOptions()).isEqualTo(ComputeOptions.defaults());
        });
    }

    @Test
    void defaultPropertiesShouldBeThoseOfTheContract() {
        runner.run(context -> {
            LocksProperties properties = context.getBean(LocksProperties.class);
            assertThat(properties.isEnabled()).isTrue();
            assertThat(properties.getBackend()).isNull();
            assertThat(properties.getKeyPrefix()).isNull();
            assertThat(properties.getRetries()).isEqualTo("infinity");
            assertThat(properties.getRetryInterval()).isEqualTo(Duration.ofMillis(10));
            assertThat(properties.getLockTimeout()).isEqualTo("30s");
            assertThat(properties.getWaitTime()).isEqualTo("10s");
            assertThat(properties.getWatchdog().isEnabled()).isFalse();
            assertThat(properties.getCleanup().isEnabled()).isTrue();
            assertThat(properties.getCleanup().getInterval()).isEqualTo(Duration.ofMinutes(5));
            assertThat(properties.getCleanup().getBatchSize()).isEqualTo(100);
            assertThat(properties.getCompute().getTimeout()).isEqualTo(Duration.ofSeconds(30));
            assertThat(properties.getCompute().getDefaultTtl()).isEqualTo(Duration.ofMinutes(5));
            assertThat(properties.getCompute().getMaxEntries()).isEqualTo(10_000);
            assertThat(properties.getAspectOrder()).isEqualTo(Integer.MAX_VALUE - 100);
            assertThat(properties.getEndpoint().getShowKeys()).isEqualTo(LocksProperties.ShowKeys.WHEN_AUTHORIZED);
            assertThat(properties.getEndpoint().getMaxListed()).isEqualTo(1000);
            assertThat(properties.getRedis().isNotify()).isTrue();
        });
    }

    @Test
    void acquirePropertiesShouldBeTheRegistryDefaultOptions() {
        runner.withPropertyValues("locks.retries=7", "locks.retry-interval=25ms", "locks.lock-timeout=PT2M",
                "locks.wait-time=2s").run(context -> {
                    AcquireOptions options = context.getBean(LockRegistry.class).defaultOptions();
                    assertThat(options.retries()).hasValue(7);
                    assertThat(options.retryInterval()).hasValue(Duration.ofMillis(25));
                    assertThat(options.lockTimeout()).hasValue(Duration.ofMinutes(2));
                    assertThat(options.waitTime()).hasValue(Duration.ofSeconds(2));
                });
    }

    @Test
    void withoutSettingsACallerShouldWaitUpToTenSecondsAsSynchronizedWould() {
        runner.run(context -> {
            AcquireOptions options = context.getBean(LockRegistry.class).defaultOptions();
            assertThat(options.retries()).isEmpty();
            assertThat(options.waitTime()).hasValue(Duration.ofSeconds(10));
            assertThat(options.lockTimeout()).hasValue(Duration.ofSeconds(30));
            assertThat(options.retryInterval()).hasValue(Duration.ofMillis(10));
        });
    }

    @Test
    void infinityShouldBeAcceptedForTheWaitTime() {
        runner.withPropertyValues("locks.retries=5", "locks.wait-time=infinity").run(context -> {
            AcquireOptions options = context.getBean(LockRegistry.class).defaultOptions();
            assertThat(options.retries()).hasValue(5);
            assertThat(options.waitTime()).isEmpty();
        });
    }

    @Test
    void infinityShouldBeAcceptedForRetriesAndLockTimeout() {
        runner.withPropertyValues("locks.retries=infinity", "locks.lock-timeout=Infinity").run(context -> {
            AcquireOptions options = context.getBean(LockRegistry.class).defaultOptions();
            assertThat(options.retries()).isEmpty();
            assertThat(options.lockTimeout()).isEmpty();
        });
    }

    @Test
    void maxBytesShouldBoundTheLocalStoreByTheSerializedSizeOfItsValues() {
        runner.withPropertyValues("locks.compute.max-bytes=10KB").run(context -> {
            ComputeCache values = context.getBean(ComputeCache.class);
            AtomicInteger computed = new AtomicInteger();
            for (int i = 0; i < 10; i++) { // each about 4 KB: the store keeps two of them at most
                String key = "huge-" + i;
                for (int read = 0; read < 3; read++) {
                    values.fetchOrCompute(key, Duration.ofHours(1), () -> {
                        computed.incrementAndGet();
                        return new byte[4_000];
                    });
                }
            }
            // Caffeine evicts in the background, soon after the writes; a miss that computes null stores nothing
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(IntStream.range(0, 10)
                    .filter(i -> values.fetchOrCompute("huge-" + i, Duration.ofHours(1), () -> null) == null))
                    .as("values evicted by the weight").hasSizeGreaterThanOrEqualTo(8));

            assertThatThrownBy(() -> values.fetchOrCompute("plain", Duration.ofHours(1), Object::new))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.Object")
                    .hasMessageContaining("java.io.Serializable").hasMessageContaining("locks.compute.max-bytes");
        });
    }

    @Test
    void computePropertiesShouldBeTheCacheDefaultOptions() {
        runner.withPropertyValues("locks.compute.timeout=3s", "locks.compute.default-ttl=0",
                "locks.compute.max-entries=5").run(context -> {
                    ComputeOptions options = context.getBean(ComputeCache.class).defaultOptions();
                    assertThat(options.computeTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(options.ttl()).isZero();
                    assertThat(context.getBean(LocksProperties.class).getCompute().getMaxEntries()).isEqualTo(5);
                });
    }

    @Test
    void everyOtherPropertyShouldBeBound() {
        runner.withPropertyValues("locks.backend=local", "locks.key-prefix=app:", "locks.watchdog.enabled=true",
                "locks.cleanup.interval=1m", "locks.cleanup.batch-size=7", "locks.aspect-order=42",
                "locks.endpoint.show-keys=when-authorized", "locks.redis.notify=false").run(context -> {
                    LocksProperties properties = context.getBean(LocksProperties.class);
                    assertThat(properties.getBackend()).isEqualTo(LocksBackend.LOCAL);
                    assertThat(properties.getKeyPrefix()).isEqualTo("app:");
                    assertThat(properties.getWatchdog().isEnabled()).isTrue();
                    assertThat(properties.getCleanup().getInterval()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(properties.getCleanup().getBatchSize()).isEqualTo(7);
                    assertThat(properties.getEndpoint().getShowKeys())
                            .isEqualTo(LocksProperties.ShowKeys.WHEN_AUTHORIZED);
                    assertThat(properties.getRedis().isNotify()).isFalse();
                    assertThat(context.getBean(LockedAdvisor.class).getOrder()).isEqualTo(42);
                    assertThat(context.getBean(FetchOrComputeAdvisor.class).getOrder()).isEqualTo(41);
                });
    }

    @Test
    void aspectOrderShouldDefaultToJustOutsideTransactions() {
        runner.run(context -> {
            assertThat(context.getBean(LockedAdvisor.class).getOrder()).isEqualTo(LocksProperties.DEFAULT_ASPECT_ORDER)
                    .isLessThan(Integer.MAX_VALUE);
            assertThat(context.getBean(FetchOrComputeAdvisor.class).getOrder())
                    .isEqualTo(LocksProperties.DEFAULT_ASPECT_ORDER - 1);
        });
    }

    @Test
    void applicationBeansShouldWin() {
        runner.withUserConfiguration(ApplicationBeans.class).run(context -> {
            assertThat(context.getBean(LockRegistry.class)).isSameAs(context.getBean("myRegistry"));
            assertThat(context.getBean(ComputeCache.class)).isSameAs(context.getBean("myCache"));
            assertThat(context.getBean(LocksSweeper.class)).isSameAs(context.getBean("mySweeper"));
            assertThat(context.getBean(LockedInterceptor.class)).isSameAs(context.getBean("myLockedInterceptor"));
            assertThat(context).doesNotHaveBean(LocalLockRegistry.class)
                    .hasSingleBean(LockedAdvisor.class)
                    .hasSingleBean(FetchOrComputeInterceptor.class);
        });
    }

    @Test
    void disabledShouldDefineNoBean() {
        runner.withPropertyValues("locks.enabled=false").run(context -> assertThat(context)
                .doesNotHaveBean(LockRegistry.class)
                .doesNotHaveBean(ComputeCache.class)
                .doesNotHaveBean(LocksProperties.class)
                .doesNotHaveBean(LockedAdvisor.class)
                .doesNotHaveBean(FetchOrComputeAdvisor.class)
                .doesNotHaveBean(LocksSweeper.class)
                .doesNotHaveBean(LocksSweeperScheduler.class));
    }

    @Test
    void cleanupDisabledShouldRemoveTheSweeperAndItsScheduling() {
        runner.withPropertyValues("locks.cleanup.enabled=false").run(context -> assertThat(context)
                .hasSingleBean(LockRegistry.class)
                .doesNotHaveBean(LocksSweeper.class)
                .doesNotHaveBean(LocksSweeperScheduler.class));
    }

    @Test
    void observersShouldAllSeeRegistryEventsInOrder() {
        runner.withUserConfiguration(Observers.class).run(context -> {
            try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("k"))) {
                assertThat(lease.isHeld()).isTrue();
            }
            assertThat(context.getBean(Observers.class).events).containsExactly("first acquired", "second acquired");
        });
    }

    @Test
    void backendShouldBeLoggedAtStartup(CapturedOutput output) {
        runner.withClassLoader(new FilteredClassLoader("dev.locks.redis.")).run(context -> assertThat(output)
                .contains("Locks backend: local (locks.backend not set; locks-redis is not on the classpath)"));
    }

    @Test
    void applicationRegistryShouldBeLoggedAsSuch(CapturedOutput output) {
        runner.withUserConfiguration(ApplicationBeans.class)
                .run(context -> assertThat(output).contains("Locks backend: recording (the application's own LockRegistry, "
                        + RecordingLockRegistry.class.getName() + ")"));
    }

    @Configuration(proxyBeanMethods = false)
    static class ApplicationBeans {

        @Bean
        RecordingLockRegistry myRegistry() {
            return new RecordingLockRegistry();
        }

        @Bean
        ComputeCache myCache() {
            return LocalComputeCache.builder().maxEntries(10).build();
        }

        @Bean
        LocksSweeper mySweeper(LockRegistry registry) {
            return new LocksSweeper(registry);
        }

        @Bean
        LockedInterceptor myLockedInterceptor(dev.locks.spring.interceptor.LockedOperationSource source,
                LockRegistry registry) {
            return new LockedInterceptor(source, () -> registry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Observers {

        final List<String> events = new CopyOnWriteArrayList<>();

        @Bean
        @Order(2)
        LocksObserver second() {
            return observer("second");
        }

        @Bean
        @Order(1)
        LocksObserver first() {
            return observer("first");
        }

        private LocksObserver observer(String name) {
            return new LocksObserver() {
                @Override
                public void onAcquire(AcquireResult result, long nanos) {
                    events.add(name + " " + result.tag());
                }
            };
        }
    }
}
