package dev.locks.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of locks: a {@code LockRegistry} and a {@code ComputeCache} of the selected backend,
 * the {@code @Locked} and {@code @FetchOrCompute} interceptors, and the sweeper of stale locks. Every bean
 * gives way to one of the application's own; {@code locks.enabled=false} turns it all off.
 *
 * <p><b>Backends.</b> Each backend is one configuration class guarded by
 * {@link ConditionalOnLocksBackend}, so that exactly one defines the beans ({@link BackendSelection} says
 * which: {@code locks.backend}, else Redis when {@code locks-redis} and a {@code RedisConnectionFactory}
 * are present, else local). Today only {@link LocalBackendConfiguration} exists. The Redis backend plugs in
 * as a {@code RedisBackendConfiguration} in this package, annotated
 * {@code @ConditionalOnLocksBackend(LocksBackend.REDIS)} and
 * {@code @ConditionalOnClass(name = BackendSelection.REDIS_REGISTRY_CLASS)}, that defines the
 * {@code LockRegistry} and {@code ComputeCache} beans under {@code @ConditionalOnMissingBean} from
 * {@link LocksProperties} (its {@code key-prefix}, {@code redis.notify}) and an
 * {@code ObjectProvider<LocksObserver>} composed by {@link CompositeLocksObserver}, and is added to the
 * {@code @Import} below. This class runs after Spring Boot's Redis auto-configuration so that the selection
 * sees its connection factory.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "locks.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LocksProperties.class)
@Import({LocalBackendConfiguration.class, LocksInterceptionConfiguration.class, LocksCleanupConfiguration.class})
public final class LocksAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LocksStartupReport locksStartupReport() {
        return new LocksStartupReport();
    }
}
