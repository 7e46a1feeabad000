package dev.locks.spring.actuate;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code locks.*} meters ({@link LocksMetrics}), when the application has a
 * Micrometer {@link MeterRegistry}.
 *
 * <p>The meters are a {@link dev.locks.LocksObserver} bean, which the starter builds into its lock registry
 * and compute cache; it needs neither of them to be created (it looks them up when its meters are bound),
 * so there is no cycle between the observer and what it observes.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "locks.enabled", matchIfMissing = true)
@ConditionalOnBean(MeterRegistry.class)
public final class LocksMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LocksMetrics locksMetrics(ObjectProvider<LockRegistry> registry, ObjectProvider<ComputeCache> cache) {
        return new LocksMetrics(registry::getIfUnique, cache::getIfUnique);
    }
}
