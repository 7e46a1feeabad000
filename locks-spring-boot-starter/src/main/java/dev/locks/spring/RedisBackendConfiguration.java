package dev.locks.spring;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.redis.RedisComputeCache;
import dev.locks.redis.RedisLockRegistry;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * The Redis backend, from {@code dev.locks:locks-redis}, on the application's own
 * {@link RedisConnectionFactory} (Spring Boot's, from {@code spring.data.redis.*}): locks and computed values
 * shared by every node that uses the same Redis and {@code locks.key-prefix}.
 *
 * <ul>
 *   <li>Both beans are built from {@link LocksProperties} as the local ones are ({@link RegistrySettings}):
 *       the default options, the watchdog, the sweep batch size, a {@link LocksClock} bean if any, and every
 *       {@link LocksObserver} bean composed in order; then {@link LockRegistryBuilderCustomizer} and
 *       {@link ComputeCacheBuilderCustomizer} beans of the Redis builders. The registry does not sweep by itself:
 *       the starter's scheduled sweeper does.</li>
 *   <li>{@code locks.key-prefix} is the namespace of every key in Redis, {@value #DEFAULT_KEY_PREFIX} when
 *       unset. {@code locks.redis.notify=false} makes the registry's waiters poll at their retry interval
 *       instead of subscribing to the release channel; the compute cache always subscribes.</li>
 *   <li>Computed values are written through the {@code RedisSerializer<Object>} bean named
 *       {@value #SERIALIZER_BEAN_NAME}, JDK serialization by default (values must be
 *       {@link java.io.Serializable}). An application replaces it by defining its own bean of that name, say
 *       {@code @Bean RedisSerializer<Object> locksRedisSerializer()} returning a JSON serializer; every node
 *       of the application must use the same one.</li>
 *   <li>On shutdown the registry stops its watchdog, releases this node's locks in Redis and unsubscribes, and
 *       the cache unsubscribes, while the connection factory still runs ({@link RedisBackendLifecycle}: the
 *       factory stops before any bean is destroyed). This applies to every {@link RedisLockRegistry} and
 *       {@link RedisComputeCache} bean, the application's own included.</li>
 * </ul>
 *
 * <p>Only classes of locks-redis and spring-data-redis appear in this class, and it is read only when
 * locks-redis is on the classpath: the class condition is checked from its annotations before the class is
 * loaded, so an application without them never meets a {@code NoClassDefFoundError}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = BackendSelection.REDIS_REGISTRY_CLASS)
@ConditionalOnLocksBackend(LocksBackend.REDIS)
class RedisBackendConfiguration {

    /** The key prefix of the Redis backend when {@code locks.key-prefix} is not set. */
    static final String DEFAULT_KEY_PREFIX = "locks:";

    /** The name of the serializer bean of computed values, which the application may define itself. */
    static final String SERIALIZER_BEAN_NAME = "locksRedisSerializer";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockRegistry.class)
    RedisLockRegistry lockRegistry(RedisConnectionFactory connectionFactory, LocksProperties properties,
            ObjectProvider<LocksObserver> observers, ObjectProvider<LocksClock> clock,
            ObjectProvider<LockRegistryBuilderCustomizer<?>> customizers) {
        RedisLockRegistry.Builder builder = RedisLockRegistry.builder(connectionFactory)
                .keyPrefix(keyPrefix(properties))
                .notify(properties.getRedis().isNotify())
                .lease(properties.getRedis().getLease());
        RegistrySettings.apply(builder, properties, observers, clock);
        return BuilderCustomizers.lockRegistry(customizers, builder).build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(ComputeCache.class)
    RedisComputeCache computeCache(RedisConnectionFactory connectionFactory, LocksProperties properties,
            @Qualifier(SERIALIZER_BEAN_NAME) RedisSerializer<Object> serializer,
            ObjectProvider<LocksObserver> observers, ObjectProvider<LocksClock> clock,
            ObjectProvider<ComputeCacheBuilderCustomizer<?>> customizers) {
        return BuilderCustomizers.computeCache(customizers, RedisComputeCache.builder(connectionFactory)
                .keyPrefix(keyPrefix(properties))
                .serializer(serializer)
                .defaultOptions(properties.toComputeOptions())
                .clock(clock.getIfAvailable(LocksClock::system))
                .observer(CompositeLocksObserver.of(observers.orderedStream().toList())))
                .build();
    }

    /**
     * JDK serialization with the application's class loader (as Spring Boot's Redis cache has it); the
     * application's bean of this name wins.
     */
    @Bean(SERIALIZER_BEAN_NAME)
    @ConditionalOnMissingBean(name = SERIALIZER_BEAN_NAME)
    RedisSerializer<Object> locksRedisSerializer(ResourceLoader resourceLoader) {
        return RedisSerializer.java(resourceLoader.getClassLoader());
    }

    /**
     * Closes the Redis beans on shutdown, before the connection factory stops; after a pause or stop of a context
     * that stays open, subscribes them again when it starts.
     */
    @Bean
    RedisBackendLifecycle locksRedisBackendLifecycle(ObjectProvider<RedisLockRegistry> registries,
            ObjectProvider<RedisComputeCache> caches, RedisConnectionFactory connectionFactory) {
        List<AutoCloseable> backend = new ArrayList<>();
        List<Runnable> resubscribe = new ArrayList<>();
        registries.orderedStream().forEach(registry -> {
            backend.add(registry);
            resubscribe.add(registry::resubscribe);
        });
        caches.orderedStream().forEach(cache -> {
            backend.add(cache);
            resubscribe.add(cache::resubscribe);
        });
        return new RedisBackendLifecycle(backend, resubscribe, connectionFactory);
    }

    private static String keyPrefix(LocksProperties properties) {
        return (properties.getKeyPrefix() != null) ? properties.getKeyPrefix() : DEFAULT_KEY_PREFIX;
    }
}
