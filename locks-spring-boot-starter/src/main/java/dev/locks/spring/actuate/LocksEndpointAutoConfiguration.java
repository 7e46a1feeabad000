package dev.locks.spring.actuate;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.LocksProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code locks} actuator endpoint ({@link LocksEndpoint}), when the application
 * has the actuator and has made the endpoint available (exposed it, and not turned its access to none).
 * {@code locks.endpoint.show-keys} decides who sees keys (by default callers authorized as for Spring Boot's
 * {@code show-values=when-authorized}), {@code locks.endpoint.max-listed} how many locks one answer lists.
 */
@AutoConfiguration(after = LocksAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBooleanProperty(name = "locks.enabled", matchIfMissing = true)
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
@EnableConfigurationProperties(LocksProperties.class)
public final class LocksEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LocksEndpoint locksEndpoint(LockRegistry registry, ObjectProvider<ComputeCache> cache,
            LocksProperties properties) {
        Show showKeys = Show.valueOf(properties.getEndpoint().getShowKeys().name());
        return new LocksEndpoint(registry, cache.getIfUnique(), showKeys, properties.getEndpoint().getRoles(),
                properties.getEndpoint().getMaxListed());
    }
}
