package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LockRegistry;
import dev.locks.local.LocalComputeCache;
import dev.locks.local.LocalLockRegistry;
import dev.locks.redis.RedisLockRegistry;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Adjusting the auto-configured registry and cache instead of replacing them (issue 11, observation 7):
 * customizer beans of the backend's builder type run after the {@code locks.*} properties; a bean of the
 * application's own that replaces them is told about at startup, since the starter's meters and observers do
 * not reach it.
 */
@ExtendWith(OutputCaptureExtension.class)
class BuilderCustomizerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withPropertyValues("locks.retries=2", "locks.compute.default-ttl=5m");

    @Test
    void customizersOfTheRunningBackendShouldApplyAfterTheProperties() {
        runner.withUserConfiguration(LocalCustomizers.class).run(context -> {
            assertThat(context.getBean(LockRegistry.class).defaultOptions().retries()).isEqualTo(OptionalInt.of(7));
            assertThat(context.getBean(ComputeCache.class).defaultOptions().ttl()).isEqualTo(Duration.ofSeconds(42));
        });
    }

    @Test
    void customizerOfAnotherBackendShouldBeSkipped() {
        runner.withUserConfiguration(RedisCustomizer.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LocalLockRegistry.class);
            assertThat(context.getBean(LockRegistry.class).defaultOptions().retries()).isEqualTo(OptionalInt.of(2));
        });
    }

    @Test
    void registryOfTheApplicationsOwnShouldBeReportedAtStartup(CapturedOutput output) {
        runner.withBean("myRegistry", LockRegistry.class, () -> LocalLockRegistry.builder().build())
                .run(context -> assertThat(output)
                        .contains("The application's own LockRegistry bean 'myRegistry' is used as it is")
                        .contains("LocksObserver").contains("LockRegistryBuilderCustomizer")
                        .doesNotContain("own ComputeCache bean"));
    }

    @Test
    void autoConfiguredBeansShouldNotBeReported(CapturedOutput output) {
        runner.run(context -> assertThat(output).doesNotContain("The application's own"));
    }

    @Configuration(proxyBeanMethods = false)
    static class LocalCustomizers {

        @Bean
        LockRegistryBuilderCustomizer<LocalLockRegistry.Builder> moreRetries() {
            return builder -> builder.defaultOptions(AcquireOptions.defaults().withRetries(7));
        }

        @Bean
        ComputeCacheBuilderCustomizer<LocalComputeCache.Builder> shorterTtl() {
            return builder -> builder.defaultOptions(ComputeOptions.defaults().withTtl(Duration.ofSeconds(42)));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RedisCustomizer {

        @Bean
        LockRegistryBuilderCustomizer<RedisLockRegistry.Builder> redisOnly() {
            return builder -> builder.defaultOptions(AcquireOptions.defaults().withRetries(9));
        }
    }
}
