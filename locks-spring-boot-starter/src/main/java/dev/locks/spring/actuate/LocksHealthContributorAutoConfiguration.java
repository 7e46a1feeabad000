package dev.locks.spring.actuate;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.spring.LocksAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code locks} health contributor ({@link LocksHealthIndicator}), when the
 * application has Spring Boot's health support; {@code management.health.locks.enabled=false} turns it off.
 */
@AutoConfiguration(after = LocksAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBooleanProperty(name = "locks.enabled", matchIfMissing = true)
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnEnabledHealthIndicator("locks")
public final class LocksHealthContributorAutoConfiguration {

    /** Named so that the contributor is called {@code locks}. */
    @Bean
    @ConditionalOnMissingBean(value = LocksHealthIndicator.class, name = { "locksHealthIndicator", "locksHealthContributor" })
    LocksHealthIndicator locksHealthIndicator(LockRegistry registry, ObjectProvider<ComputeCache> cache) {
        return new LocksHealthIndicator(registry, cache.getIfUnique());
    }
}
