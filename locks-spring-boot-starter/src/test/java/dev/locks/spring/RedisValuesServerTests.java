package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.ComputeCache;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockUnavailableException;
import dev.locks.redis.AllowListJdkSerializer;
import dev.locks.redis.RedisLockRegistry;
import dev.locks.redis.test.RedisConnections;
import dev.locks.redis.test.RedisServerExtension;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Locks and values on Redis servers of their own (SPEC 8): {@code locksComputeRedisConnectionFactory}, the
 * lock server's memory policy, {@code OOM} replies, and the key prefix that must not be empty.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisValuesServerTests {

    @RegisterExtension
    static final RedisServerExtension locks = new RedisServerExtension();

    @RegisterExtension
    static final RedisServerExtension values = new RedisServerExtension();

    private static final Duration TTL = Duration.ofMinutes(10);

    private ApplicationContextRunner onTheLockServer() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + locks.port(),
                        "spring.data.redis.timeout=2s", "spring.data.redis.connect-timeout=2s");
    }

    private ApplicationContextRunner withAValuesServer() {
        return onTheLockServer().withUserConfiguration(ValuesServer.class)
                .withPropertyValues("test.values-port=" + values.port());
    }

    @AfterEach
    void unlimitedMemory() {
        for (RedisServerExtension server : List.of(locks, values)) {
            server.server().command("CONFIG", "SET", "maxmemory", "0");
            server.server().command("CONFIG", "SET", "maxmemory-policy", "noeviction");
        }
    }

    @Test
    void computeConnectionFactoryShouldHoldTheValuesAndTheLockServerNone() {
        withAValuesServer().run(context -> {
            ComputeCache cache = context.getBean(ComputeCache.class);
            try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("account:1"))) {
                assertThat(cache.fetchOrCompute("quotes:ACME", TTL, () -> "12.5")).isEqualTo("12.5");

                assertThat(keys(locks)).contains("locks:lock:account:1").noneMatch(key -> key.contains("quotes:ACME"));
                assertThat(keys(values)).contains("locks:value:quotes:ACME").noneMatch(key -> key.contains("account:1"));
            }
        });
    }

    @Test
    void floodOfValuesOnASmallMaxmemoryShouldNeverTakeALockAway() {
        for (RedisServerExtension server : List.of(locks, values)) {
            server.server().command("CONFIG", "SET", "maxmemory", "4mb");
            server.server().command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        }
        withAValuesServer().run(context -> {
            ComputeCache cache = context.getBean(ComputeCache.class);
            LockRegistry registry = context.getBean(LockRegistry.class);
            try (Lease held = registry.acquire(List.of("account:1"))) {
                String payload = "x".repeat(4096);
                for (int i = 0; i < 5_000; i++) { // 20 MB of values into 4 MB: the values' server evicts values
                    cache.fetchOrCompute("flood:" + i, TTL, () -> payload);
                }

                assertThat(keys(values).size()).as("the values' server evicted values").isLessThan(5_000);
                assertThat(keys(locks)).contains("locks:lock:account:1");
                try (RedisLockRegistry otherNode = RedisLockRegistry.builder(locks.newConnectionFactory()).build()) {
                    assertThat(otherNode.tryAcquire(List.of("account:1"))).as("another node cannot take it").isEmpty();
                }
                assertThat(held.isHeld()).isTrue();
            }
        });
    }

    @Test
    void evictingPolicyOnTheLockServerShouldBeWarnedAboutAtStartup(CapturedOutput output) {
        locks.server().command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        onTheLockServer().run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("The Redis server of the locks has maxmemory-policy allkeys-lru");

        locks.server().command("CONFIG", "SET", "maxmemory-policy", "volatile-ttl");
        onTheLockServer().run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("maxmemory-policy volatile-ttl");
    }

    @Test
    void noevictionShouldNotBeWarnedAbout(CapturedOutput output) {
        onTheLockServer().run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("maxmemory-policy");
    }

    @Test
    void outOfMemoryShouldBeALockUnavailableExceptionThatSaysSoForLocksAndValues() {
        onTheLockServer().run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            ComputeCache cache = context.getBean(ComputeCache.class);
            registry.acquire(List.of("warm-up")).close();
            cache.fetchOrCompute("warm-up", TTL, () -> "v");
            locks.server().command("CONFIG", "SET", "maxmemory", "1");

            assertThatThrownBy(() -> registry.acquire(List.of("account:1"))).isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("out of memory").hasMessageNotContaining("reachable");
            assertThatThrownBy(() -> cache.fetchOrCompute("quotes:ACME", TTL, () -> "12.5"))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("out of memory").hasMessageContaining("locksComputeRedisConnectionFactory");
        });
    }

    @Test
    void emptyKeyPrefixShouldStopStartupNamingTheProperty() {
        onTheLockServer().withPropertyValues("locks.key-prefix=").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("locks.key-prefix");
        });
    }

    @Test
    void computeConnectionFactoryAsTheOnlyCandidateShouldStopStartup() {
        onTheLockServer().withUserConfiguration(OnlyAValuesServer.class)
                .withPropertyValues("test.values-port=" + values.port()).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessageContaining("locksComputeRedisConnectionFactory")
                            .hasMessageContaining("defaultCandidate = false");
                });
    }

    @Test
    void defaultSerializerShouldAllowTheApplicationsPackagesAndTheJdkValueTypes() {
        onTheLockServer().withUserConfiguration(ApplicationPackage.class).run(context -> {
            AllowListJdkSerializer serializer = context.getBean(RedisBackendConfiguration.SERIALIZER_BEAN_NAME,
                    AllowListJdkSerializer.class);
            assertThat(serializer.allowedClasses()).containsExactly("java.lang.*", "java.util.**", "java.time.**",
                    "java.math.*", "dev.locks.spring.**");
            Holding value = new Holding("ACME", BigDecimal.TEN);
            assertThat(serializer.deserialize(serializer.serialize(value))).isEqualTo(value);
            ComputeCache cache = context.getBean(ComputeCache.class);
            cache.fetchOrCompute("holdings:1", TTL, () -> value);
            assertThat(cache.fetchOrCompute("holdings:1", TTL, () -> (Object) "not stored")).isEqualTo(value);
        });
    }

    /**
     * The application's patterns replace its auto-configuration packages, but the JDK's value types stay: an
     * application that adds {@code com.example.**} still stores an {@code Integer} (issue 27).
     */
    @Test
    void allowedClassesShouldReplaceTheApplicationsPackagesAndKeepTheJdkValueTypes() {
        onTheLockServer().withUserConfiguration(ApplicationPackage.class)
                .withPropertyValues("locks.redis.serialization.allowed-classes=com.example.**,java.lang.*")
                .run(context -> {
                    AllowListJdkSerializer serializer = context.getBean(RedisBackendConfiguration.SERIALIZER_BEAN_NAME,
                            AllowListJdkSerializer.class);
                    assertThat(serializer.allowedClasses()).containsExactly("java.lang.*", "java.util.**",
                            "java.time.**", "java.math.*", "com.example.**");
                    assertThat(serializer.deserialize(serializer.serialize(42))).isEqualTo(42);
                    ComputeCache cache = context.getBean(ComputeCache.class);
                    assertThat(cache.fetchOrCompute("answer", TTL, () -> 42)).isEqualTo(42);
                    assertThatThrownBy(() -> cache.fetchOrCompute("holdings:2", TTL,
                            () -> new Holding("ACME", BigDecimal.ONE)))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("is not in locks.redis.serialization.allowed-classes");
                });
    }

    @Test
    void patternThatIsNotAClassPatternShouldStopStartupNamingTheProperty() {
        onTheLockServer().withPropertyValues("locks.redis.serialization.allowed-classes=java.lang.*,maxdepth=1000")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                            .hasMessageContaining("locks.redis.serialization.allowed-classes");
                });
    }

    private static List<String> keys(RedisServerExtension server) {
        Object reply = server.server().command("KEYS", "*");
        return ((List<?>) reply).stream().map(String::valueOf).toList();
    }

    @Configuration(proxyBeanMethods = false)
    static class ValuesServer {

        @Bean(defaultCandidate = false)
        LettuceConnectionFactory locksComputeRedisConnectionFactory(
                @Value("${test.values-port}") int port) {
            return RedisConnections.connectionFactory(port);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OnlyAValuesServer {

        @Bean
        LettuceConnectionFactory locksComputeRedisConnectionFactory(
                @Value("${test.values-port}") int port) {
            return RedisConnections.connectionFactory(port);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    static class ApplicationPackage {
    }

    record Holding(String symbol, BigDecimal amount) implements Serializable {
    }
}
