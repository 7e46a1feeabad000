package dev.locks.spring;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.local.LocalComputeCache;
import dev.locks.local.LocalLockRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;

/**
 * The in-memory backend. The registry does not sweep on a thread of its own: the starter's scheduled
 * {@code LocksSweeper} does, unless {@code locks.cleanup.enabled=false}. A {@link LocksClock} bean, if the
 * application defines one, replaces the system clock (tests). {@link LockRegistryBuilderCustomizer} and
 * {@link ComputeCacheBuilderCustomizer} beans of {@code LocalLockRegistry.Builder} and
 * {@code LocalComputeCache.Builder} adjust the builders last.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnLocksBackend(LocksBackend.LOCAL)
class LocalBackendConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockRegistry.class)
    LocalLockRegistry lockRegistry(LocksProperties properties, ObjectProvider<LocksObserver> observers,
            ObjectProvider<LocksClock> clock, ObjectProvider<LockRegistryBuilderCustomizer<?>> customizers) {
        return BuilderCustomizers.lockRegistry(customizers,
                RegistrySettings.apply(LocalLockRegistry.builder(), properties, observers, clock)).build();
    }

    @Bean
    @ConditionalOnMissingBean(ComputeCache.class)
    LocalComputeCache computeCache(LocksProperties properties, ObjectProvider<LocksObserver> observers,
            ObjectProvider<LocksClock> clock, ObjectProvider<ComputeCacheBuilderCustomizer<?>> customizers) {
        return localComputeCache(properties, observers, clock, customizers);
    }

    /** The local compute cache from {@code locks.compute.*}: this backend's, and the JDBC backend's for now. */
    static LocalComputeCache localComputeCache(LocksProperties properties, ObjectProvider<LocksObserver> observers,
            ObjectProvider<LocksClock> clock, ObjectProvider<ComputeCacheBuilderCustomizer<?>> customizers) {
        LocalComputeCache.Builder builder = ComputeSettings.apply(LocalComputeCache.builder(), properties, observers,
                clock).maxEntries(properties.getCompute().getMaxEntries());
        DataSize maxBytes = properties.getCompute().getMaxBytes();
        if (maxBytes != null) {
            builder.maxWeight(maxBytes.toBytes(), SerializedSize::of);
        }
        return BuilderCustomizers.computeCache(customizers, builder).build();
    }
}
