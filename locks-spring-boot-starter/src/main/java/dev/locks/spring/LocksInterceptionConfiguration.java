package dev.locks.spring;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.spring.interceptor.CallObservations;
import dev.locks.spring.interceptor.EvictComputedAdvisor;
import dev.locks.spring.interceptor.EvictComputedInterceptor;
import dev.locks.spring.interceptor.EvictComputedOperationSource;
import dev.locks.spring.interceptor.FetchOrComputeAdvisor;
import dev.locks.spring.interceptor.FetchOrComputeInterceptor;
import dev.locks.spring.interceptor.FetchOrComputeOperationSource;
import dev.locks.spring.interceptor.LockedAdvisor;
import dev.locks.spring.interceptor.LockedInterceptor;
import dev.locks.spring.interceptor.LockedOperationSource;
import java.util.function.Supplier;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The {@code @Locked}, {@code @FetchOrCompute} and {@code @EvictComputed} advisors, as Spring's own transaction
 * advisor is made:
 * infrastructure beans that whatever auto-proxy creator the application has applies (and one is registered
 * if it has none), so that no {@code @EnableAspectJAutoProxy} is needed. They depend on nothing the
 * application defines until the first call, when the registry and the cache are looked up once.
 *
 * <p>Order ({@code locks.aspect-order}, default {@link LocksProperties#DEFAULT_ASPECT_ORDER}): the
 * {@code @Locked} advisor at that order, just outside {@code @Transactional}; the {@code @FetchOrCompute}
 * advisor one step further out, so that a method with both takes no lock on a hit; the {@code @EvictComputed}
 * advisor there too, so that it evicts after the method's lock is released and its transaction committed.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
@Import(LocksAutoProxyRegistrar.class)
class LocksInterceptionConfiguration {

    static final String ASPECT_ORDER = "locks.aspect-order";

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockedOperationSource lockedOperationSource(Environment environment, BeanFactory beanFactory) {
        return new LockedOperationSource(environment, beanFactory);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockedInterceptor lockedInterceptor(LockedOperationSource lockedOperationSource,
            ObjectProvider<LockRegistry> registry, ObjectProvider<CallObservations> observations) {
        return new LockedInterceptor(lockedOperationSource, FirstLookup.of(registry::getObject),
                observations(observations));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockedAdvisor lockedAdvisor(LockedOperationSource lockedOperationSource,
            LockedInterceptor lockedInterceptor, Environment environment) {
        return new LockedAdvisor(lockedOperationSource, lockedInterceptor, aspectOrder(environment));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static FetchOrComputeOperationSource fetchOrComputeOperationSource(Environment environment,
            BeanFactory beanFactory) {
        return new FetchOrComputeOperationSource(environment, beanFactory);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static FetchOrComputeInterceptor fetchOrComputeInterceptor(
            FetchOrComputeOperationSource fetchOrComputeOperationSource, ObjectProvider<ComputeCache> cache,
            ObjectProvider<CallObservations> observations) {
        return new FetchOrComputeInterceptor(fetchOrComputeOperationSource, FirstLookup.of(cache::getObject),
                observations(observations));
    }

    /** The application's observations, looked up on the first call; none without an ObservationRegistry. */
    static Supplier<CallObservations> observations(ObjectProvider<CallObservations> observations) {
        return FirstLookup.of(() -> observations.getIfUnique(() -> CallObservations.NONE));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static FetchOrComputeAdvisor fetchOrComputeAdvisor(FetchOrComputeOperationSource fetchOrComputeOperationSource,
            FetchOrComputeInterceptor fetchOrComputeInterceptor, Environment environment) {
        return new FetchOrComputeAdvisor(fetchOrComputeOperationSource, fetchOrComputeInterceptor,
                outside(aspectOrder(environment)));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static EvictComputedOperationSource evictComputedOperationSource(Environment environment,
            BeanFactory beanFactory) {
        return new EvictComputedOperationSource(environment, beanFactory);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static EvictComputedInterceptor evictComputedInterceptor(EvictComputedOperationSource evictComputedOperationSource,
            ObjectProvider<ComputeCache> cache) {
        return new EvictComputedInterceptor(evictComputedOperationSource, FirstLookup.of(cache::getObject));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static EvictComputedAdvisor evictComputedAdvisor(EvictComputedOperationSource evictComputedOperationSource,
            EvictComputedInterceptor evictComputedInterceptor, Environment environment) {
        return new EvictComputedAdvisor(evictComputedOperationSource, evictComputedInterceptor,
                outside(aspectOrder(environment)));
    }

    /** One step further out than {@code order}. */
    private static int outside(int order) {
        return order == Integer.MIN_VALUE ? order : order - 1;
    }

    /** Read from the environment rather than {@link LocksProperties}, which advisors created early must not pull in. */
    static int aspectOrder(Environment environment) {
        return Binder.get(environment).bind(ASPECT_ORDER, Integer.class).orElse(LocksProperties.DEFAULT_ASPECT_ORDER);
    }

    /**
     * A bean looked up on the first call and kept, without a lock: Spring's {@code SingletonSupplier} takes a
     * {@code ReentrantLock} on its first calls, and concurrent first calls of a reactive or coroutine method, on event
     * loops or Reactor's parallel threads, would park there (BlockHound caught it in the Kotlin tests). Two first
     * calls may both look the bean up; a lookup of an existing singleton is idempotent and lock-free.
     */
    static final class FirstLookup<T> implements Supplier<T> {

        private final Supplier<T> lookup;

        private volatile T value;

        private FirstLookup(Supplier<T> lookup) {
            this.lookup = lookup;
        }

        static <T> Supplier<T> of(Supplier<T> lookup) {
            return new FirstLookup<>(lookup);
        }

        @Override
        public T get() {
            T found = value;
            if (found == null) {
                found = lookup.get();
                value = found;
            }
            return found;
        }
    }
}
