package dev.locks.spring.actuate;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.spring.LocksAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code locks} health contributor ({@link LocksHealthIndicator}), when the
 * application has Spring Boot's health support; {@code management.health.locks.enabled=false} turns it off.
 *
 * <p>The check pings the backend once ({@link LocksBackendPing}: a {@code PING} on the connection factory of
 * the Redis backend, within {@code locks.redis.timeout}, one short statement on the JDBC backend's own connection, nothing for the local one) and reads counters; the {@code stale} detail comes from the
 * last sweep ({@link LastSweep}, an observer of the registry).
 */
@AutoConfiguration(after = LocksAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBooleanProperty(name = "locks.enabled", matchIfMissing = true)
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnEnabledHealthIndicator("locks")
public final class LocksHealthContributorAutoConfiguration {

    /** Named so that the contributor is called {@code locks}. */
    @Bean
    @ConditionalOnMissingBean(value = LocksHealthIndicator.class, name = { "locksHealthIndicator", "locksHealthContributor" })
    LocksHealthIndicator locksHealthIndicator(LockRegistry registry, ObjectProvider<ComputeCache> cache,
            ObjectProvider<LocksBackendPing> ping, LastSweep locksLastSweep) {
        return new LocksHealthIndicator(registry, cache.getIfUnique(), ping.getIfUnique(() -> LocksBackendPing.NONE),
                locksLastSweep);
    }

    /** An observer of the registry's sweeps, so that health need not look for stale locks itself. */
    @Bean
    @ConditionalOnMissingBean
    static LastSweep locksLastSweep() {
        return new LastSweep();
    }

    /**
     * The ping of the Redis backend ({@code RedisLockRegistry.ping()}), answered or failed within
     * {@code locks.redis.timeout} whatever the client's command timeout: one {@code PING} on its connection
     * factory; on a Redis Cluster (a {@code PING} of each master the client knows) also {@code CLUSTER INFO}, so that the health is {@code DOWN} while some
     * slot has no master ({@code cluster_state:fail}, from the moment the cluster agrees a master failed until a
     * replica took over). The client stops pinging a master it knows has failed, so a {@code PING} alone could
     * say {@code UP} while that master's keys are unavailable.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "dev.locks.redis.RedisLockRegistry",
            "org.springframework.data.redis.connection.RedisConnectionFactory" })
    @ConditionalOnBean(type = "dev.locks.redis.RedisLockRegistry")
    static class RedisPing {

        @Bean
        @ConditionalOnMissingBean
        LocksBackendPing locksBackendPing(dev.locks.redis.RedisLockRegistry registry) {
            return registry::ping; // within locks.redis.timeout, whatever the client's command timeout
        }
    }

    /** The ping of the JDBC backend: one short statement on the registry's own connection. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.locks.jdbc.JdbcLockRegistry")
    @ConditionalOnBean(type = "dev.locks.jdbc.JdbcLockRegistry")
    static class JdbcPing {

        @Bean
        @ConditionalOnMissingBean
        LocksBackendPing locksBackendPing(dev.locks.jdbc.JdbcLockRegistry registry) {
            return registry::ping;
        }
    }
}
