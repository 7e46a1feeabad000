package dev.locks.spring;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.jdbc.JdbcLockRegistry;
import dev.locks.local.LocalComputeCache;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The JDBC backend, from {@code dev.locks:locks-jdbc}, on the application's own {@link DataSource}
 * ({@code spring.datasource.*}): locks shared by every node that uses the same database and
 * {@code locks.jdbc.table-prefix} (and {@code locks.key-prefix}, {@code ""} by default: a namespace within the
 * table).
 *
 * <ul>
 *   <li>The registry is built from {@link LocksProperties} as the other backends' are ({@link RegistrySettings}),
 *       plus {@code locks.jdbc.*}: the table prefix, the lease of infinite locks, notification, the registry's
 *       connections and timeout, and whether to
 *       create the schema at startup ({@code locks.jdbc.initialize-schema}, Spring Boot's way: {@code embedded}
 *       by default, which for PostgreSQL means never; {@code always}; {@code never}).</li>
 *   <li>The registry takes a few connections of the data source and keeps them (its own short transactions,
 *       never the caller's); on shutdown, which comes before the data source closes (it depends on it), it
 *       releases this node's locks and gives them back.</li>
 *   <li>The {@link ComputeCache} is the local one for now: computed values are per node under jdbc.</li>
 * </ul>
 *
 * <p>Only classes of locks-jdbc appear in this class, and it is read only when locks-jdbc is on the classpath.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = BackendSelection.JDBC_REGISTRY_CLASS)
@ConditionalOnLocksBackend(LocksBackend.JDBC)
class JdbcBackendConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockRegistry.class)
    JdbcLockRegistry lockRegistry(DataSource dataSource, LocksProperties properties,
            ObjectProvider<LocksObserver> observers, ObjectProvider<LocksClock> clock,
            ObjectProvider<LockRegistryBuilderCustomizer<?>> customizers) {
        LocksProperties.Jdbc jdbc = properties.getJdbc();
        JdbcLockRegistry.Builder builder = JdbcLockRegistry.builder(dataSource)
                .tablePrefix(jdbc.getTablePrefix())
                .keyPrefix((properties.getKeyPrefix() != null) ? properties.getKeyPrefix() : "")
                .lease(jdbc.getLease())
                .notify(jdbc.isNotify())
                .connections(jdbc.getConnections())
                .timeout(jdbc.getTimeout())
                .initializeSchema(initializeSchema(jdbc.getInitializeSchema(), dataSource));
        RegistrySettings.apply(builder, properties, observers, clock);
        return BuilderCustomizers.lockRegistry(customizers, builder).build();
    }

    /** The local compute cache: values are per node under jdbc until the JDBC compute cache exists. */
    @Bean
    @ConditionalOnMissingBean(ComputeCache.class)
    LocalComputeCache computeCache(LocksProperties properties, ObjectProvider<LocksObserver> observers,
            ObjectProvider<LocksClock> clock, ObjectProvider<ComputeCacheBuilderCustomizer<?>> customizers) {
        return LocalBackendConfiguration.localComputeCache(properties, observers, clock, customizers);
    }

    /** {@code embedded}: only for an embedded database (H2, HSQLDB, Derby), so never for PostgreSQL. */
    static boolean initializeSchema(LocksProperties.InitializeSchema mode, DataSource dataSource) {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> ClassUtils.isPresent("org.springframework.boot.jdbc.EmbeddedDatabaseConnection",
                    JdbcBackendConfiguration.class.getClassLoader()) && EmbeddedDatabaseConnection.isEmbedded(dataSource);
        };
    }
}
