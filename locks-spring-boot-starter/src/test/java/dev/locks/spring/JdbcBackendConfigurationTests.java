package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockUnavailableException;
import dev.locks.jdbc.JdbcComputeCache;
import dev.locks.jdbc.JdbcLockRegistry;
import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.local.LocalComputeCache;
import dev.locks.local.LocalLockRegistry;
import dev.locks.spi.JdkValueSerializer;
import dev.locks.spi.ValueSerializer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@link JdbcBackendConfiguration} in an application context, on Spring Boot's DataSource auto-configuration
 * (HikariCP) against a PostgreSQL of this class's own: when the JDBC backend is chosen, what it is built from,
 * and what gives way to the application. Runs with locks-jdbc and locks-redis both on the classpath (the
 * starter's 'jdbc-backend' test run).
 */
@ExtendWith(OutputCaptureExtension.class)
class JdbcBackendConfigurationTests {

    @RegisterExtension
    static final PostgresServerExtension server = new PostgresServerExtension();

    private ApplicationContextRunner withDataSource() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LocksAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + server.server().jdbcUrl(), "spring.datasource.username=postgres",
                        "spring.datasource.hikari.connection-timeout=2000");
    }

    /** SPEC 10: the endpoint's owner names the instance, from {@code spring.application.name}. */
    @Test
    void ownersShouldNameTheApplication() {
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.initialize-schema=always",
                "spring.application.name=report-service").run(context -> {
                    LockRegistry locks = context.getBean(LockRegistry.class);
                    try (Lease lease = locks.acquire(List.of("job"))) {
                        assertThat(locks.heldLock("job").orElseThrow().owner())
                                .startsWith(Thread.currentThread().getName() + " @ report-service on ");
                    }
                });
    }

    @Test
    void locksBackendJdbcShouldGiveTheJdbcRegistryAndTheJdbcComputeCache(CapturedOutput output) {
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.initialize-schema=always")
                .run(context -> {
                    assertThat(context).hasSingleBean(JdbcLockRegistry.class).doesNotHaveBean(LocalLockRegistry.class)
                            .hasSingleBean(JdbcComputeCache.class).doesNotHaveBean(LocalComputeCache.class);
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    assertThat(registry.backend()).isEqualTo("jdbc");
                    try (Lease lease = registry.acquire(List.of("k"))) {
                        assertThat(registry.heldLock("k")).isPresent();
                    }
                    ComputeCache cache = context.getBean(ComputeCache.class);
                    assertThat(cache.backend()).isEqualTo("jdbc");
                    assertThat(cache.fetchOrCompute("v", Duration.ofMinutes(1), () -> "computed")).isEqualTo("computed");
                    assertThat(server.server().queryLong("SELECT count(*) FROM locks_value WHERE value_key = 'v'"))
                            .as("stored in the database").isEqualTo(1);
                    assertThat(output).contains("Locks backend: jdbc (locks.backend=jdbc)");
                });
    }

    /** Two applications on one database are two nodes: one computes, the other finds the value; invalidation crosses. */
    @Test
    void twoNodesShouldShareComputedValuesAndInvalidations() {
        ApplicationContextRunner node = withDataSource().withPropertyValues("locks.backend=jdbc",
                "locks.jdbc.initialize-schema=always", "locks.key-prefix=shop:");
        AtomicInteger computed = new AtomicInteger();
        node.run(a -> node.run(b -> {
            ComputeCache first = a.getBean(ComputeCache.class);
            ComputeCache second = b.getBean(ComputeCache.class);
            assertThat(first).isNotSameAs(second);
            Duration ttl = Duration.ofMinutes(1);

            assertThat(first.fetchOrCompute("price:1", ttl, () -> "v" + computed.incrementAndGet())).isEqualTo("v1");
            assertThat(second.fetchOrCompute("price:1", ttl, () -> "v" + computed.incrementAndGet())).isEqualTo("v1");
            second.invalidate("price:1");
            assertThat(first.fetchOrCompute("price:1", ttl, () -> "v" + computed.incrementAndGet())).isEqualTo("v2");
            assertThat(server.server().queryLong("SELECT count(*) FROM locks_value WHERE value_key = 'shop:price:1'"))
                    .isEqualTo(1);
        }));
    }

    @Test
    void computeCacheCustomizersOfTheJdbcBuilderShouldApply() {
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.initialize-schema=always")
                .withBean("shortTtl", ComputeCacheBuilderCustomizer.class,
                        () -> (ComputeCacheBuilderCustomizer<JdbcComputeCache.Builder>) builder -> builder
                                .defaultOptions(ComputeOptions.defaults().withTtl(Duration.ofSeconds(7))))
                .run(context -> assertThat(context.getBean(ComputeCache.class).defaultOptions().ttl())
                        .isEqualTo(Duration.ofSeconds(7)));
    }

    @Test
    void theApplicationsOwnComputeCacheAndSerializerShouldWin() {
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.initialize-schema=always")
                .withBean(ComputeCache.class, () -> LocalComputeCache.builder().build())
                .run(context -> assertThat(context).doesNotHaveBean(JdbcComputeCache.class)
                        .hasSingleBean(ComputeCache.class));
        ValueSerializer own = JdkValueSerializer.withJdkTypes(null, List.of("com.example.*"));
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.initialize-schema=always")
                .withBean(JdbcBackendConfiguration.SERIALIZER_BEAN_NAME, ValueSerializer.class, () -> own)
                .run(context -> assertThat(context.getBean(JdbcBackendConfiguration.SERIALIZER_BEAN_NAME))
                        .isSameAs(own));
    }

    @Test
    void theDefaultSerializerShouldAllowTheConfiguredClassesOnly() {
        withDataSource().withPropertyValues("locks.backend=jdbc",
                "locks.jdbc.serialization.allowed-classes=com.example.Quote,java.lang.*")
                .run(context -> assertThat(context.getBean(JdbcBackendConfiguration.SERIALIZER_BEAN_NAME,
                        JdkValueSerializer.class).allowedClasses()).containsExactly("java.lang.*", "java.util.**",
                        "java.time.**", "java.math.*", "com.example.Quote"));
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.serialization.allowed-classes=!*")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StartupFailures.analyze(context.getStartupFailure()).getDescription())
                            .contains("locks.jdbc.serialization.allowed-classes");
                });
    }

    @Test
    void withOnlyLocksJdbcADataSourceShouldSelectTheJdbcBackend(CapturedOutput output) {
        withDataSource().withClassLoader(new FilteredClassLoader("dev.locks.redis."))
                .withPropertyValues("locks.jdbc.initialize-schema=always")
                .run(context -> {
                    assertThat(context).hasSingleBean(JdbcLockRegistry.class);
                    assertThat(output).contains(
                            "Locks backend: jdbc (locks.backend not set; locks-jdbc and a DataSource bean are present)");
                });
    }

    @Test
    void withOnlyLocksJdbcAndNoDataSourceTheBackendShouldBeLocal() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("dev.locks.redis."))
                .run(context -> assertThat(context).hasSingleBean(LocalLockRegistry.class));
    }

    @Test
    void withBothDistributedModulesLocksBackendShouldBeRequired() {
        withDataSource().run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = StartupFailures.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("locks.backend")
                    .contains("Both locks-redis and locks-jdbc are on the classpath");
        });
    }

    @Test
    void locksBackendJdbcWithoutLocksJdbcShouldFailSayingWhatToAdd() {
        withDataSource().withClassLoader(new FilteredClassLoader("dev.locks.jdbc."))
                .withPropertyValues("locks.backend=jdbc")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = StartupFailures.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("'locks.backend' is 'jdbc'")
                            .contains("dev.locks.jdbc.JdbcLockRegistry was not found");
                    assertThat(analysis.getAction()).contains("Add the dependency 'dev.locks:locks-jdbc'");
                });
    }

    /** Not created, and not there: startup stops saying so (SPEC section 9), rather than every call failing later. */
    @Test
    void theSchemaShouldByDefaultNotBeCreatedOnPostgres() {
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.table-prefix=untouched_")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(tableExists("untouched_lock")).isFalse();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("untouched_lock")
                            .hasMessageContaining("locks.jdbc.initialize-schema");
                });
    }

    @Test
    void theTablePrefixShouldNameTheSchema() {
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.table-prefix=app_",
                "locks.jdbc.initialize-schema=always", "locks.jdbc.lease=10s", "locks.jdbc.notify=false",
                "locks.jdbc.connections=1", "locks.jdbc.timeout=2s", "locks.key-prefix=svc:")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(tableExists("app_lock")).isTrue();
                    try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("k"))) {
                        assertThat(server.server().queryLong("SELECT count(*) FROM app_lock WHERE lock_key = 'svc:k'"))
                                .isEqualTo(1);
                    }
                });
    }

    @Test
    void anInvalidTablePrefixShouldStopStartupNamingTheProperty() {
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.table-prefix=Locks-")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StartupFailures.analyze(context.getStartupFailure()).getDescription())
                            .contains("locks.jdbc.table-prefix");
                });
    }

    @Test
    void invalidJdbcPropertiesShouldStopStartupNamingTheProperty() {
        for (String invalid : new String[] {"locks.jdbc.lease=0s", "locks.jdbc.connections=0", "locks.jdbc.timeout=-1s",
                "locks.jdbc.dialect=oracle", "locks.jdbc.poll-interval=0s"}) {
            withDataSource().withPropertyValues("locks.backend=jdbc", invalid).run(context -> {
                assertThat(context).hasFailed();
                assertThat(StartupFailures.analyze(context.getStartupFailure()).getDescription())
                        .contains(invalid.substring(0, invalid.indexOf('=')));
            });
        }
    }

    @Test
    void theApplicationsOwnRegistryShouldWin() {
        withDataSource().withPropertyValues("locks.backend=jdbc", "locks.jdbc.initialize-schema=always")
                .withBean(LockRegistry.class, () -> LocalLockRegistry.builder().build())
                .run(context -> assertThat(context).doesNotHaveBean(JdbcLockRegistry.class)
                        .hasSingleBean(LockRegistry.class));
    }

    private static boolean tableExists(String table) throws SQLException {
        try (Connection connection = server.server().connect();
                ResultSet result = connection.getMetaData().getTables(null, "public", table, null)) {
            return result.next();
        }
    }
}
