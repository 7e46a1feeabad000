package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.ComputeCache;
import dev.locks.ComputeOutcome;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LocksObserver;
import dev.locks.local.LocalComputeCache;
import dev.locks.local.LocalLockRegistry;
import dev.locks.redis.RedisComputeCache;
import dev.locks.redis.RedisLockRegistry;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spring.cleanup.LocksSweeper;
import dev.locks.test.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * {@link RedisBackendConfiguration} in an application context, against a redis-server of this class's own:
 * when the Redis backend is chosen, what it is built from, and what gives way to the application.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisBackendConfigurationTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    /** With Spring Boot's Redis auto-configuration, on this class's server, as an application has it. */
    private ApplicationContextRunner withRedis() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=500ms", "spring.data.redis.connect-timeout=500ms");
    }

    /** SPEC 10: the endpoint's owner names the instance, from {@code spring.application.name}. */
    @Test
    void ownersShouldNameTheApplication() {
        withRedis().withPropertyValues("spring.application.name=report-service").run(context -> {
            LockRegistry locks = context.getBean(LockRegistry.class);
            try (Lease lease = locks.acquire(List.of("job"))) {
                assertThat(locks.heldLock("job").orElseThrow().owner())
                        .startsWith(Thread.currentThread().getName() + " @ report-service on ");
            }
        });
        withRedis().run(context -> {
            LockRegistry locks = context.getBean(LockRegistry.class);
            try (Lease lease = locks.acquire(List.of("job"))) {
                assertThat(locks.heldLock("job").orElseThrow().owner()).doesNotContain(" on ")
                        .endsWith(" (" + ProcessHandle.current().pid() + ")");
            }
        });
    }

    @Test
    void connectionFactoryAndLocksRedisShouldSelectTheRedisBackend(CapturedOutput output) {
        withRedis().run(context -> {
            assertThat(context).hasSingleBean(RedisLockRegistry.class)
                    .hasSingleBean(RedisComputeCache.class)
                    .doesNotHaveBean(LocalLockRegistry.class)
                    .doesNotHaveBean(LocalComputeCache.class)
                    .hasSingleBean(LocksSweeper.class)
                    .hasBean(RedisBackendConfiguration.SERIALIZER_BEAN_NAME);
            assertThat(context.getBean(LockRegistry.class).backend()).isEqualTo("redis");
            assertThat(context.getBean(ComputeCache.class).backend()).isEqualTo("redis");
            try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("k"))) {
                assertThat(lease.isHeld()).isTrue();
            }
            assertThat(output).contains("Locks backend: redis (locks.backend not set; "
                    + "locks-redis and a RedisConnectionFactory bean are present)");
        });
    }

    @Test
    void springBootsRedisAutoConfigurationShouldComeFirstWhateverTheOrderGiven() {
        // Listed after the starter on purpose: the starter is ordered after Spring Boot's Redis
        // auto-configuration, so that the selection sees the connection factory that it defines.
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.port())
                .run(context -> assertThat(context).hasSingleBean(RedisLockRegistry.class));
    }

    @Test
    void applicationsOwnConnectionFactoryShouldSelectRedis() {
        runner.withBean(RedisConnectionFactory.class,
                () -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port())))
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    assertThat(registry).isInstanceOf(RedisLockRegistry.class);
                    try (Lease lease = registry.acquire(List.of("k"))) {
                        assertThat(redis.server().command("EXISTS", "locks:lock:k")).isEqualTo(1L);
                    }
                });
    }

    @Test
    void localBackendPropertyShouldWinOverRedis(CapturedOutput output) {
        withRedis().withPropertyValues("locks.backend=local").run(context -> {
            assertThat(context).hasSingleBean(LocalLockRegistry.class)
                    .hasSingleBean(LocalComputeCache.class)
                    .doesNotHaveBean(RedisLockRegistry.class)
                    .doesNotHaveBean(RedisComputeCache.class)
                    .doesNotHaveBean(RedisBackendConfiguration.SERIALIZER_BEAN_NAME);
            assertThat(output).contains("Locks backend: local (locks.backend=local)");
        });
    }

    @Test
    void redisBackendPropertyShouldSelectRedis() {
        withRedis().withPropertyValues("locks.backend=redis")
                .run(context -> assertThat(context).hasSingleBean(RedisLockRegistry.class));
    }

    @Test
    void noConnectionFactoryShouldSelectLocal(CapturedOutput output) {
        runner.run(context -> {
            assertThat(context).hasSingleBean(LocalLockRegistry.class).doesNotHaveBean(RedisLockRegistry.class);
            assertThat(output).contains("Locks backend: local (locks.backend not set; no RedisConnectionFactory bean)");
        });
    }

    @Test
    void locksRedisHiddenShouldSelectLocalEvenWithAConnectionFactory(CapturedOutput output) {
        withRedis().withClassLoader(new FilteredClassLoader("dev.locks.redis.")).run(context -> {
            assertThat(context).hasNotFailed()
                    .hasSingleBean(LocalLockRegistry.class)
                    .hasSingleBean(LocalComputeCache.class)
                    .doesNotHaveBean(RedisBackendConfiguration.SERIALIZER_BEAN_NAME);
            assertThat(output)
                    .contains("Locks backend: local (locks.backend not set; locks-redis is not on the classpath)");
        });
    }

    @Test
    void connectionFactoryWithoutLocksRedisShouldWarnNamingTheMissingDependency(CapturedOutput output) {
        withRedis().withClassLoader(new FilteredClassLoader("dev.locks.redis.")).run(context -> {
            assertThat(context).hasSingleBean(LocalLockRegistry.class);
            assertThat(output).containsPattern("WARN .*" + LocksStartupReport.class.getSimpleName())
                    .contains("dev.locks:locks-redis").contains("locks.backend=local");
        });
    }

    @Test
    void localBackendChosenOnPurposeShouldNotWarn(CapturedOutput output) {
        withRedis().withClassLoader(new FilteredClassLoader("dev.locks.redis."))
                .withPropertyValues("locks.backend=local")
                .run(context -> assertThat(output).doesNotContain("dev.locks:locks-redis"));
    }

    @Test
    void redisBackendWithoutConnectionFactoryShouldFailNamingIt() {
        runner.withPropertyValues("locks.backend=redis").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .isInstanceOf(NoSuchBeanDefinitionException.class)
                    .hasMessageContaining(RedisConnectionFactory.class.getName());
            assertThat(StartupFailures.analyze(context.getStartupFailure()).getDescription())
                    .contains("RedisBackendConfiguration")
                    .contains("'" + RedisConnectionFactory.class.getName() + "' that could not be found");
        });
    }

    @Test
    void applicationBeansShouldWin() {
        withRedis().withUserConfiguration(LocksAutoConfigurationTests.ApplicationBeans.class).run(context -> {
            assertThat(context.getBean(LockRegistry.class)).isSameAs(context.getBean("myRegistry"));
            assertThat(context.getBean(ComputeCache.class)).isSameAs(context.getBean("myCache"));
            assertThat(context).doesNotHaveBean(RedisLockRegistry.class).doesNotHaveBean(RedisComputeCache.class);
        });
    }

    @Test
    void applicationSerializerShouldWriteTheComputedValues() {
        withRedis().withUserConfiguration(PlainTextSerializer.class).run(context -> {
            assertThat(context.getBean(RedisBackendConfiguration.SERIALIZER_BEAN_NAME))
                    .isSameAs(context.getBean(PlainTextSerializer.class).serializer);
            ComputeCache cache = context.getBean(ComputeCache.class);

            assertThat(cache.fetchOrCompute("q", Duration.ofMinutes(1), () -> "42")).isEqualTo("42");

            assertThat(redis.server().command("GET", "locks:value:q")).isEqualTo("text:42");
            assertThat(cache.fetchOrCompute("q", Duration.ofMinutes(1), () -> "computed again")).isEqualTo("42");
        });
    }

    @Test
    void defaultKeyPrefixShouldBeLocks() {
        withRedis().run(context -> {
            try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("account:1"))) {
                context.getBean(ComputeCache.class).fetchOrCompute("quote:ACME", Duration.ofMinutes(1), () -> "1.00");
                assertThat(keys()).contains("locks:lock:account:1", "locks:fencing", "locks:value:quote:ACME");
                assertThat(lease.keys()).containsExactly("account:1");
            }
        });
    }

    @Test
    void keyPrefixShouldNamespaceEveryKeyInRedis() {
        withRedis().withPropertyValues("locks.key-prefix=app:").run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            try (Lease lease = registry.acquire(List.of("account:1"))) {
                context.getBean(ComputeCache.class).fetchOrCompute("quote:ACME", Duration.ofMinutes(1), () -> "1.00");
                assertThat(keys()).contains("app:lock:account:1", "app:fencing", "app:value:quote:ACME")
                        .allMatch(key -> key.startsWith("app:"));
                assertThat(registry.heldLocks()).singleElement()
                        .satisfies(held -> assertThat(held.key()).isEqualTo("account:1"));
            }
        });
    }

    @Test
    void notifyShouldSubscribeTheRegistryOnceToTheReleaseChannel() {
        withRedis().run(context -> await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(redis.server().subscribers("locks:released")).isEqualTo(1)));
    }

    @Test
    void notifyFalseShouldLeaveTheReleaseChannelWithoutSubscriber() {
        withRedis().withPropertyValues("locks.redis.notify=false").run(context -> {
            // the compute cache subscribes to its own channel all the same: once it has, so would have the registry
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(redis.server().subscribers("locks:computed")).isEqualTo(1));
            assertThat(redis.server().subscribers("locks:released")).isZero();
            try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("k"))) {
                assertThat(lease.isHeld()).isTrue();
            }
        });
    }

    @Test
    void redisLeaseShouldHoldInfiniteLockTimeoutsUnderThatLease() {
        withRedis().withPropertyValues("locks.redis.lease=7s").run(context -> {
            try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("forever"),
                    AcquireOptions.defaults().withInfiniteLockTimeout())) {
                assertThat(lease.expiresAt()).isEqualTo(java.time.Instant.MAX);
                assertThat((Long) redis.server().command("PTTL", "locks:lock:forever")).isBetween(1L, 7_000L);
            }
        });
    }

    @Test
    void propertiesShouldBeTheBackendsDefaults() {
        withRedis().withPropertyValues("locks.retries=7", "locks.retry-interval=25ms", "locks.lock-timeout=2m",
                "locks.wait-time=2s", "locks.compute.timeout=3s", "locks.compute.default-ttl=0").run(context -> {
                    LocksProperties properties = context.getBean(LocksProperties.class);
                    assertThat(context.getBean(LockRegistry.class).defaultOptions())
                            .isEqualTo(properties.toAcquireOptions());
                    assertThat(context.getBean(LockRegistry.class).defaultOptions().retries()).hasValue(7);
                    assertThat(context.getBean(ComputeCache.class).defaultOptions())
                            .isEqualTo(properties.toComputeOptions());
                    assertThat(context.getBean(ComputeCache.class).defaultOptions().computeTimeout())
                            .isEqualTo(Duration.ofSeconds(3));
                });
    }

    @Test
    void clockAndObserversShouldBeTheApplications() {
        withRedis().withUserConfiguration(ClockAndObserver.class).run(context -> {
            ClockAndObserver beans = context.getBean(ClockAndObserver.class);
            try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("k"))) {
                assertThat(beans.events).containsExactly("acquired");
            }
            ComputeCache cache = context.getBean(ComputeCache.class);
            ComputeOutcome outcome = cache.begin("q", Duration.ofMinutes(1), "test");
            assertThat(outcome).isInstanceOf(ComputeOutcome.Compute.class);
            assertThat(cache.computations()).singleElement()
                    .satisfies(computation -> assertThat(computation.startedAt())
                            .isEqualTo(context.getBean(ManualClock.class).instant()));
            cache.complete(((ComputeOutcome.Compute) outcome).ticket(), "done", Duration.ofMinutes(1));
        });
    }

    @Test
    void closingTheContextShouldReleaseThisNodesLocks() {
        AtomicReference<Lease> held = new AtomicReference<>();
        withRedis().withPropertyValues("locks.watchdog.enabled=true").run(context -> {
            held.set(context.getBean(LockRegistry.class).acquire(List.of("k")));
            assertThat(redis.server().command("EXISTS", "locks:lock:k")).isEqualTo(1L);
        });
        assertThat(redis.server().command("EXISTS", "locks:lock:k")).isEqualTo(0L);
        assertThat(held.get().isHeld()).isFalse();
    }

    @Test
    void backendShouldCloseJustBeforeTheConnectionFactoryStops() {
        withRedis().run(context -> assertThat(context.getBean(RedisBackendLifecycle.class).getPhase())
                .isEqualTo(context.getBean(LettuceConnectionFactory.class).getPhase() + 1));
    }

    @Test
    void disabledShouldDefineNoRedisBean() {
        withRedis().withPropertyValues("locks.enabled=false").run(context -> assertThat(context)
                .doesNotHaveBean(LockRegistry.class)
                .doesNotHaveBean(ComputeCache.class)
                .doesNotHaveBean(RedisBackendConfiguration.SERIALIZER_BEAN_NAME));
    }

    @SuppressWarnings("unchecked")
    private static List<String> keys() {
        return (List<String>) redis.server().command("KEYS", "*");
    }

    /** Writes values as {@code text:<value>}, so that a test can read them in Redis. */
    @Configuration(proxyBeanMethods = false)
    static class PlainTextSerializer {

        final RedisSerializer<Object> serializer = new RedisSerializer<>() {

            @Override
            public byte[] serialize(Object value) {
                return ("text:" + value).getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public Object deserialize(byte[] bytes) {
                return (bytes == null) ? null : new String(bytes, StandardCharsets.UTF_8).substring("text:".length());
            }
        };

        @Bean
        RedisSerializer<Object> locksRedisSerializer() {
            return serializer;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClockAndObserver {

        final List<String> events = new CopyOnWriteArrayList<>();

        @Bean
        ManualClock clock() {
            return new ManualClock(Instant.parse("2030-01-01T00:00:00Z"));
        }

        @Bean
        LocksObserver recordingObserver() {
            return new LocksObserver() {
                @Override
                public void onAcquire(AcquireResult result, long nanos) {
                    events.add(result.tag());
                }
            };
        }
    }
}
