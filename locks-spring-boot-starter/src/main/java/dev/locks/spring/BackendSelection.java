package dev.locks.spring;

import java.util.Locale;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Which backend the application gets, and why: {@code locks.backend} when set, else Redis when
 * {@code locks-redis} is on the classpath and a {@code RedisConnectionFactory} bean exists, else local.
 *
 * @param backend the backend
 * @param reason why, for the startup log and the condition report
 */
record BackendSelection(LocksBackend backend, String reason) {

    static final String PROPERTY = "locks.backend";

    /** The class of locks-redis whose presence means that the Redis backend can be used. */
    static final String REDIS_REGISTRY_CLASS = "dev.locks.redis.RedisLockRegistry";

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
            return new BackendSelection(backend, PROPERTY + "=" + configured);
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

    private static LocksBackend parse(String configured) {
        String name = configured.toUpperCase(Locale.ROOT).replace('-', '_');
        for (LocksBackend backend : LocksBackend.values()) {
            if (backend.name().equals(name)) {
                return backend;
            }
        }
        throw new InvalidConfigurationPropertyValueException(PROPERTY, configured,
                "Must be 'local' or 'redis', or unset to use Redis when locks-redis and a RedisConnectionFactory"
                        + " are present and the local backend otherwise.");
    }

    private static boolean hasRedisConnectionFactory(ListableBeanFactory beanFactory, ClassLoader classLoader) {
        if (beanFactory == null || !ClassUtils.isPresent(REDIS_CONNECTION_FACTORY_CLASS, classLoader)) {
            return false;
        }
        Class<?> type = ClassUtils.resolveClassName(REDIS_CONNECTION_FACTORY_CLASS, classLoader);
        return beanFactory.getBeanNamesForType(type, true, false).length > 0;
    }
}
