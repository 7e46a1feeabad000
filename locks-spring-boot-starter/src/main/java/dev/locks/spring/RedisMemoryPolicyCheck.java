package dev.locks.spring;

import java.util.Properties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Warns once, at startup, when the Redis server of the locks may evict keys for memory: under every
 * {@code allkeys-*} and {@code volatile-*} {@code maxmemory-policy} a held lock (a key with an expiry) can
 * disappear, and another node then takes it while its owner still holds it. One {@code CONFIG GET}; a server
 * that is down or refuses {@code CONFIG} (some managed services) is not checked, and startup goes on.
 */
final class RedisMemoryPolicyCheck implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(RedisMemoryPolicyCheck.class);

    private static final String POLICY = "maxmemory-policy";

    private final RedisConnectionFactory connectionFactory;

    RedisMemoryPolicyCheck(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String policy = policy();
        if (evicts(policy)) {
            logger.warn("The Redis server of the locks has maxmemory-policy " + policy + ": when it runs out of"
                    + " memory it may evict a held lock, which another node then acquires while its owner still holds"
                    + " it. Set maxmemory-policy noeviction on that server (writes are then refused with OOM, a"
                    + " LockUnavailableException), and keep computed values on another server with a"
                    + " RedisConnectionFactory bean named " + RedisBackendConfiguration.COMPUTE_CONNECTION_FACTORY_BEAN_NAME
                    + ".");
        }
    }

    static boolean evicts(String policy) {
        return policy != null && (policy.startsWith("allkeys-") || policy.startsWith("volatile-"));
    }

    private String policy() {
        try (RedisConnection connection = connectionFactory.getConnection()) {
            Properties config = connection.serverCommands().getConfig(POLICY);
            return config == null ? null : config.getProperty(POLICY);
        }
        catch (RuntimeException ex) {
            logger.debug("Could not read the maxmemory-policy of the Redis server of the locks", ex);
            return null;
        }
    }
}
