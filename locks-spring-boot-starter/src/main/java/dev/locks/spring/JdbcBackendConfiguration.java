package dev.locks.spring;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.jdbc.JdbcComputeCache;
import dev.locks.jdbc.JdbcLockRegistry;
import dev.locks.spi.JdkValueSerializer;
import dev.locks.spi.ValueSerializer;
import javax.sql.DataSource;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * The JDBC backend, from {@code dev.locks:locks-jdbc}, on the application's own {@link DataSource}
 * ({@code spring.datasource.*}): locks and computed values shared by every node that uses the same database and
 * {@code locks.jdbc.table-prefix} (and {@code locks.key-prefix}, {@code ""} by default: a namespace within the
 * tables).
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
 *   <li>The {@link ComputeCache} is a {@link JdbcComputeCache} on the same data source and table prefix, built
 *       from {@link LocksProperties} as the other backends' are, then {@link ComputeCacheBuilderCustomizer} beans
 *       of its builder: one computer per missing key across all nodes, values in the database. It keeps
 *       {@code locks.jdbc.connections} connections of its own too, and shares the node's listening connection
 *       with the registry. Computed values are written through the {@code ValueSerializer} bean named
 *       {@value #SERIALIZER_BEAN_NAME}, by default JDK serialization with an allow-list
 *       ({@link JdkValueSerializer}, {@code locks.jdbc.serialization.allowed-classes}; values must be
 *       {@link java.io.Serializable}); an application replaces it by defining its own bean of that name.</li>
 *   <li>At startup, a HikariCP pool smaller than what these beans keep of it plus one (for the application) is
 *       warned about, naming {@code locks.jdbc.connections} and the pool's size.</li>
 * </ul>
 *
 * <p>Only classes of locks-jdbc appear in this class, and it is read only when locks-jdbc is on the classpath.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = BackendSelection.JDBC_REGISTRY_CLASS)
@ConditionalOnLocksBackend(LocksBackend.JDBC)
class JdbcBackendConfiguration {

    /** The name of the serializer bean of computed values, which the application may define itself. */
    static final String SERIALIZER_BEAN_NAME = "locksJdbcSerializer";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockRegistry.class)
    JdbcLockRegistry lockRegistry(DataSource dataSource, LocksProperties properties,
            ObjectProvider<LocksObserver> observers, ObjectProvider<LocksClock> clock,
            ObjectProvider<LockRegistryBuilderCustomizer<?>> customizers, Environment environment) {
        LocksProperties.Jdbc jdbc = properties.getJdbc();
        JdbcLockRegistry.Builder builder = JdbcLockRegistry.builder(dataSource)
                .tablePrefix(jdbc.getTablePrefix())
                .keyPrefix((properties.getKeyPrefix() != null) ? properties.getKeyPrefix() : "")
                .lease(jdbc.getLease())
                .notify(jdbc.isNotify())
                .connections(jdbc.getConnections())
                .timeout(jdbc.getTimeout())
                .dialect(jdbc.getDialect())
                .pollInterval(jdbc.getPollInterval())
                .initializeSchema(initializeSchema(jdbc.getInitializeSchema(), dataSource));
        builder.applicationName(RegistrySettings.applicationName(environment));
        RegistrySettings.apply(builder, properties, observers, clock);
        return BuilderCustomizers.lockRegistry(customizers, builder).build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(ComputeCache.class)
    JdbcComputeCache computeCache(DataSource dataSource, LocksProperties properties,
            @Qualifier(SERIALIZER_BEAN_NAME) ValueSerializer serializer, ObjectProvider<LocksObserver> observers,
            ObjectProvider<LocksClock> clock, ObjectProvider<ComputeCacheBuilderCustomizer<?>> customizers) {
        LocksProperties.Jdbc jdbc = properties.getJdbc();
        JdbcComputeCache.Builder builder = JdbcComputeCache.builder(dataSource)
                .tablePrefix(jdbc.getTablePrefix())
                .keyPrefix((properties.getKeyPrefix() != null) ? properties.getKeyPrefix() : "")
                .serializer(serializer)
                .connections(jdbc.getConnections())
                .timeout(jdbc.getTimeout())
                .dialect(jdbc.getDialect())
                .noticePollInterval(jdbc.getPollInterval())
                .initializeSchema(initializeSchema(jdbc.getInitializeSchema(), dataSource));
        ComputeSettings.apply(builder, properties, observers, clock);
        return BuilderCustomizers.computeCache(customizers, builder).build();
    }

    /**
     * JDK serialization with the application's class loader that never instantiates a class outside
     * {@code locks.jdbc.serialization.allowed-classes} (by default the application's auto-configuration packages
     * and the JDK's value types), with limits on depth, references and bytes; the application's bean of this name
     * wins.
     */
    @Bean(SERIALIZER_BEAN_NAME)
    @ConditionalOnMissingBean(name = SERIALIZER_BEAN_NAME)
    ValueSerializer locksJdbcSerializer(ResourceLoader resourceLoader, LocksProperties properties,
            BeanFactory beanFactory) {
        return AllowedClasses.serializer(properties.getJdbc().getSerialization(),
                "locks.jdbc.serialization.allowed-classes", beanFactory,
                allowed -> new JdkValueSerializer(resourceLoader.getClassLoader(), allowed,
                        "locks.jdbc.serialization.allowed-classes"));
    }

    /**
     * Warns, once every singleton is built, when the {@link DataSource} is a HikariCP pool with fewer connections than
     * the JDBC beans keep of it ({@code locks.jdbc.connections} each for the registry and the compute cache, and one
     * listening) plus one: the application's own queries would wait for a connection, or the library for one.
     */
    @Bean
    static SmartInitializingSingleton locksJdbcPoolSizeCheck(ObjectProvider<DataSource> dataSource,
            ObjectProvider<LocksProperties> properties, ObjectProvider<JdbcLockRegistry> registry,
            ObjectProvider<JdbcComputeCache> cache) {
        return () -> {
            DataSource pool = dataSource.getIfUnique();
            LocksProperties locks = properties.getIfAvailable();
            if (pool == null || locks == null) {
                return;
            }
            int connections = locks.getJdbc().getConnections();
            int registries = (registry.getIfUnique() != null) ? 1 : 0;
            int caches = (cache.getIfUnique() != null) ? 1 : 0;
            int kept = (registries + caches) * connections + ((registries + caches > 0) ? 1 : 0);
            Integer size = hikariMaximumPoolSize(pool);
            if (kept > 0 && size != null && size < kept + 1) {
                LogFactory.getLog(JdbcBackendConfiguration.class).warn("The locks' JDBC backend keeps " + kept
                        + " connections of the DataSource's pool for as long as it runs (locks.jdbc.connections="
                        + connections + " for each of " + ((registries == 1) ? "the lock registry" : "")
                        + ((registries + caches == 2) ? " and " : "") + ((caches == 1) ? "the compute cache" : "")
                        + ", and one listening), but the pool (HikariCP, maximum-pool-size " + size + ") has fewer"
                        + " than " + (kept + 1) + ": the application's own queries will wait for a connection. Raise"
                        + " spring.datasource.hikari.maximum-pool-size to at least " + (kept + 1)
                        + ", or lower locks.jdbc.connections.");
            }
        };
    }

    /** The maximum pool size of a HikariCP {@link DataSource}; {@code null} for any other (or without HikariCP). */
    static Integer hikariMaximumPoolSize(DataSource dataSource) {
        try {
            Class<?> hikari = ClassUtils.forName("com.zaxxer.hikari.HikariDataSource",
                    JdbcBackendConfiguration.class.getClassLoader());
            if (!hikari.isInstance(dataSource) && !dataSource.isWrapperFor(hikari)) {
                return null;
            }
            Object pool = hikari.isInstance(dataSource) ? dataSource : dataSource.unwrap(hikari);
            return (Integer) hikari.getMethod("getMaximumPoolSize").invoke(pool);
        } catch (LinkageError | ReflectiveOperationException | java.sql.SQLException
                | RuntimeException e) {
            return null; // not a pool this check knows
        }
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
