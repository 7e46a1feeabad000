package dev.locks.docs.properties;

import dev.locks.ComputeOptions;
import dev.locks.local.LocalLockRegistry;
import dev.locks.redis.RedisComputeCache;
import dev.locks.spring.ComputeCacheBuilderCustomizer;
import dev.locks.spring.LockRegistryBuilderCustomizer;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class Customizers {

    // tag::customizers[]
    @Bean
    LockRegistryBuilderCustomizer<LocalLockRegistry.Builder> biggerSweepBatches() {   // or RedisLockRegistry.Builder
        return builder -> builder.cleanupBatchSize(1_000);
    }

    @Bean
    ComputeCacheBuilderCustomizer<RedisComputeCache.Builder> computeOptions() {  // or Local-, JdbcComputeCache.Builder
        return builder -> builder.defaultOptions(ComputeOptions.defaults().withTtl(Duration.ofMinutes(1)));
    }
    // end::customizers[]
}
