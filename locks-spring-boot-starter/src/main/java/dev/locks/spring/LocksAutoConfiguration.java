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
 * are present, else JDBC when {@code locks-jdbc} and a {@code DataSource} are, else local):
 * {@link LocalBackendConfiguration}, {@link RedisBackendConfiguration} and {@link JdbcBackendConfiguration}.
 * The Redis and JDBC ones are also {@code @ConditionalOnClass} on their module's registry, so that an
 * application without the optional {@code locks-redis} or {@code locks-jdbc} never loads them. Each defines the {@code LockRegistry}
 * and {@code ComputeCache} beans under {@code @ConditionalOnMissingBean} from {@link LocksProperties} and an
 * {@code ObjectProvider<LocksObserver>} composed by {@link CompositeLocksObserver}. This class runs after
 * Spring Boot's Redis and DataSource auto-configurations so that the selection sees their beans; the backend
 * that runs, and why, is logged at startup ({@link LocksStartupReport}).
 */
@AutoConfiguration(afterName = {"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "locks.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LocksProperties.class)
@Import({LocalBackendConfiguration.class, RedisBackendConfiguration.class, JdbcBackendConfiguration.class,
        LocksInterceptionConfiguration.class, LocksCleanupConfiguration.class})
public final class LocksAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LocksStartupReport locksStartupReport() {
        return new LocksStartupReport();
    }
}
