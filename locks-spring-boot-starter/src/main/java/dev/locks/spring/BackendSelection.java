package dev.locks.spring;

import java.util.Locale;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Which backend the application gets, and why: {@code locks.backend} when set, else Redis when
 * {@code locks-redis} is on the classpath and a {@code RedisConnectionFactory} bean exists, else JDBC when
 * {@code locks-jdbc} is on the classpath and a {@code DataSource} bean exists, else local. With both
 * distributed modules on the classpath, {@code locks.backend} must be set (startup fails naming it).
 *
 * @param backend the backend
 * @param reason why, for the startup log and the condition report
 */
record BackendSelection(LocksBackend backend, String reason) {

    static final String PROPERTY = "locks.backend";

    /** The class of locks-redis whose presence means that the Redis backend can be used. */
    static final String REDIS_REGISTRY_CLASS = "dev.locks.redis.RedisLockRegistry";

    /** The class of locks-jdbc whose presence means that the JDBC backend can be used. */
    static final String JDBC_REGISTRY_CLASS = "dev.locks.jdbc.JdbcLockRegistry";

    static final String DATA_SOURCE_CLASS = "javax.sql.DataSource";

    static final String REDIS_CONNECTION_FACTORY_CLASS =
            "org.springframework.data.redis.connection.RedisConnectionFactory";

    /**
     * Selects the backend.
     *
     * @throws InvalidConfigurationPropertyValueException when {@code locks.backend} names no backend
     * @throws MissingLocksBackendException when {@code locks.backend} names a backend that is not on the
     *         classpath
     */
    static BackendSelection select(Environment environment, ListableBeanFactory beanFactory, ClassLoader classLoader) {
        String configured = Binder.get(environment).bind(PROPERTY, String.class).orElse("").trim();
        boolean redisPresent = ClassUtils.isPresent(REDIS_REGISTRY_CLASS, classLoader);
        if (!configured.isEmpty()) {
            LocksBackend backend = parse(configured);
            if (backend == LocksBackend.REDIS && !redisPresent) {
                throw new MissingLocksBackendException(backend, REDIS_REGISTRY_CLASS);
            }
            if (backend == LocksBackend.JDBC && !ClassUtils.isPresent(JDBC_REGISTRY_CLASS, classLoader)) {
                throw new MissingLocksBackendException(backend, JDBC_REGISTRY_CLASS);
            }
            return new BackendSelection(backend, PROPERTY + "=" + configured);
        }
        if (ClassUtils.isPresent(JDBC_REGISTRY_CLASS, classLoader)) {
            return selectWithJdbc(redisPresent, beanFactory, classLoader);
        }
        if (redisPresent && hasRedisConnectionFactory(beanFactory, classLoader)) {
            return new BackendSelection(LocksBackend.REDIS,
                    PROPERTY + " not set; locks-redis and a RedisConnectionFactory bean are present");
        }
        return new BackendSelection(LocksBackend.LOCAL, PROPERTY + " not set; "
                + (redisPresent ? "no RedisConnectionFactory bean" : "locks-redis is not on the classpath"));
    }

    /**
     * The warning for an application that has a {@code RedisConnectionFactory} but not locks-redis, and has not
     * chosen a backend: its locks stay in memory, so its replicas do not exclude each other. {@code null}
     * otherwise.
     */
    static String missingRedisModuleWarning(Environment environment, ListableBeanFactory beanFactory,
            ClassLoader classLoader) {
        boolean configured = Binder.get(environment).bind(PROPERTY, String.class).isBound();
        if (configured || ClassUtils.isPresent(REDIS_REGISTRY_CLASS, classLoader)
                || !hasRedisConnectionFactory(beanFactory, classLoader)) {
            return null;
        }
        return "A RedisConnectionFactory bean exists, but dev.locks:locks-redis is not on the classpath: locks are"
                + " held in this JVM's memory only, so the replicas of this application do not exclude each other."
                + " Add the dependency dev.locks:locks-redis to lock across nodes with Redis, or set"
                + " locks.backend=local to keep the in-memory backend on purpose.";
    }

    /** locks-jdbc is present: JDBC with a DataSource, unless locks-redis is present too (then the application must say). */
    private static BackendSelection selectWithJdbc(boolean redisPresent, ListableBeanFactory beanFactory,
            ClassLoader classLoader) {
        if (redisPresent) {
            throw new InvalidConfigurationPropertyValueException(PROPERTY, null, "Both locks-redis and locks-jdbc are"
                    + " on the classpath: set locks.backend to 'redis' or 'jdbc' (or 'local').");
        }
        if (hasBean(beanFactory, DATA_SOURCE_CLASS, classLoader)) {
            return new BackendSelection(LocksBackend.JDBC, PROPERTY + " not set; locks-jdbc and a DataSource bean are present");
        }
        return new BackendSelection(LocksBackend.LOCAL, PROPERTY + " not set; no DataSource bean");
    }

    private static LocksBackend parse(String configured) {
        String name = configured.toUpperCase(Locale.ROOT).replace('-', '_');
        for (LocksBackend backend : LocksBackend.values()) {
            if (backend.name().equals(name)) {
                return backend;
            }
        }
        throw new InvalidConfigurationPropertyValueException(PROPERTY, configured,
                "Must be 'local' or 'redis' or 'jdbc', or unset to use Redis when locks-redis and a"
                        + " RedisConnectionFactory are present, JDBC when locks-jdbc and a DataSource are, and the"
                        + " local backend otherwise.");
    }

    private static boolean hasRedisConnectionFactory(ListableBeanFactory beanFactory, ClassLoader classLoader) {
        return hasBean(beanFactory, REDIS_CONNECTION_FACTORY_CLASS, classLoader);
    }

    private static boolean hasBean(ListableBeanFactory beanFactory, String typeName, ClassLoader classLoader) {
        if (beanFactory == null || !ClassUtils.isPresent(typeName, classLoader)) {
            return false;
        }
        Class<?> type = ClassUtils.resolveClassName(typeName, classLoader);
        return beanFactory.getBeanNamesForType(type, true, false).length > 0;
    }
}
