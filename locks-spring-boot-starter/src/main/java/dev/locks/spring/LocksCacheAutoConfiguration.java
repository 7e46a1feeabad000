package dev.locks.spring;

import dev.locks.ComputeCache;
import dev.locks.LocksObserver;
import dev.locks.spring.cache.SingleFlightCacheManagers;
import dev.locks.spring.cache.SingleFlightCacheMeterBinderProvider;
import dev.locks.spring.interceptor.CallObservations;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.cache.metrics.CacheMeterBinderProvider;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cache.CacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Spring's caches with misses loaded once across all nodes, with {@code locks.cache.single-flight=true} (SPEC 12):
 * the application's {@link CacheManager} beans are wrapped as they are created ({@link SingleFlightCacheManagers},
 * the caches of {@code locks.cache.cache-names} or all), and Spring Boot's cache metrics bind a wrapped cache as the
 * cache it wraps ({@link SingleFlightCacheMeterBinderProvider}). Without the property nothing here exists. The
 * post-processor reads its properties from the environment and looks the compute cache up on the first miss, so
 * that it pulls no bean in early.
 */
@AutoConfiguration(after = LocksAutoConfiguration.class,
        beforeName = "org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration")
@ConditionalOnClass(CacheManager.class)
@ConditionalOnBooleanProperty(name = "locks.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("locks.cache.single-flight")
public final class LocksCacheAutoConfiguration {

    static final String CACHE_NAMES = "locks.cache.cache-names";

    @Bean
    @ConditionalOnMissingBean
    static SingleFlightCacheManagers locksSingleFlightCacheManagers(Environment environment,
            ObjectProvider<ComputeCache> computeCache, ObjectProvider<CallObservations> observations,
            ObjectProvider<LocksObserver> events) {
        Set<String> names = Binder.get(environment).bind(CACHE_NAMES, Bindable.setOf(String.class)).orElse(Set.of());
        return new SingleFlightCacheManagers(names, LocksInterceptionConfiguration.FirstLookup.of(computeCache::getObject),
                LocksInterceptionConfiguration.observations(observations),
                LocksInterceptionConfiguration.FirstLookup.of(
                        () -> CompositeLocksObserver.of(events.orderedStream().toList())));
    }

    /** Spring Boot's cache metrics of wrapped caches, when the application has them. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.cache.metrics.CacheMeterBinderProvider")
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean
        SingleFlightCacheMeterBinderProvider locksSingleFlightCacheMeterBinderProvider(
                ObjectProvider<CacheMeterBinderProvider<?>> providers) {
            return new SingleFlightCacheMeterBinderProvider(providers);
        }
    }
}
