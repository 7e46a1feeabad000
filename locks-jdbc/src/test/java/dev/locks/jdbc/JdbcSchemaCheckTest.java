package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.AcquireOptions;
import dev.locks.ComputeOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockUnavailableException;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A database that answers but lacks the schema, or has an older one, stops the build with a message naming the
 * missing object, {@code locks.jdbc.initialize-schema} and the shipped script (SPEC section 9; issue 27, observation
 * 9); a schema dropped at runtime is named as such, not as PostgreSQL's hint about casts.
 */
class JdbcSchemaCheckTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Test
    void aRegistryOnADatabaseWithoutTheSchemaShouldNotStart() {
        assertThatThrownBy(() -> JdbcLockRegistry.builder(postgres.dataSource()).tablePrefix("absent_")
                .cleanupInterval(Duration.ZERO).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("absent_lock")
                .hasMessageContaining("locks.jdbc.initialize-schema")
                .hasMessageContaining(Schema.SCRIPT);
    }

    @Test
    void aComputeCacheOnADatabaseWithoutTheSchemaShouldNotStart() {
        assertThatThrownBy(() -> JdbcComputeCache.builder(postgres.dataSource()).tablePrefix("absent_").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("absent_")
                .hasMessageContaining("locks.jdbc.initialize-schema")
                .hasMessageContaining(Schema.SCRIPT);
    }

    @Test
    void anOlderSchemaShouldNotStartEither() throws Exception {
        JdbcLockRegistry.builder(postgres.dataSource()).tablePrefix("older_").initializeSchema(true)
                .cleanupInterval(Duration.ZERO).build().close();
        try (Connection connection = postgres.server().connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP FUNCTION older_renew"); // as if the schema predated it
        }
        assertThatThrownBy(() -> JdbcLockRegistry.builder(postgres.dataSource()).tablePrefix("older_")
                .cleanupInterval(Duration.ZERO).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("older_renew")
                .hasMessageContaining("locks.jdbc.initialize-schema");
    }

    /**
     * A schema of the version before shared and counted locks (without the holders' table and its three functions,
     * a lock held) is named by what it lacks, and the shipped script upgrades it in place: the held lock stays, and
     * keys can be held shared and by permits.
     */
    @Test
    void aSchemaFromBeforeSharedLocksShouldBeNamedAndUpgradedInPlace() throws Exception {
        try (JdbcLockRegistry first = JdbcLockRegistry.builder(postgres.dataSource()).tablePrefix("before13_")
                .initializeSchema(true).cleanupInterval(Duration.ZERO).build()) {
            try (Connection connection = postgres.server().connect();
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP FUNCTION before13_acquire_shared");
                statement.execute("DROP FUNCTION before13_release_shared");
                statement.execute("DROP FUNCTION before13_renew_shared");
                statement.execute("DROP TABLE before13_holder");
            }
            Lease held = first.acquire(List.of("job"), AcquireOptions.defaults()
                    .withLockTimeout(Duration.ofMinutes(5)));
            assertThatThrownBy(() -> JdbcLockRegistry.builder(postgres.dataSource()).tablePrefix("before13_").build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("before13_holder")
                    .hasMessageContaining("before13_acquire_shared")
                    .hasMessageContaining("locks.jdbc.initialize-schema");

            try (JdbcLockRegistry upgraded = JdbcLockRegistry.builder(postgres.dataSource()).tablePrefix("before13_")
                    .initializeSchema(true).cleanupInterval(Duration.ZERO).build()) {
                assertThat(upgraded.tryAcquire(List.of("job"))).as("the lock held before the upgrade").isEmpty();
                try (Lease reader = upgraded.tryAcquire(List.of("config"), AcquireOptions.defaults().shared())
                        .orElseThrow();
                        Lease permit = upgraded.tryAcquire(List.of("tenant:1"),
                                AcquireOptions.defaults().withPermits(2)).orElseThrow()) {
                    assertThat(upgraded.heldLocks()).extracting(HeldLock::key)
                            .containsExactly("config", "job", "tenant:1");
                }
            }
            held.close();
        }
    }

    /**
     * A schema of the version before refresh-ahead and stale-if-error (without their columns and functions, its values
     * stored) is named by what it lacks, and the shipped script upgrades it in place: the values stay.
     */
    @Test
    void aSchemaFromBeforeRefreshAheadShouldBeNamedAndUpgradedInPlace() throws Exception {
        try (JdbcComputeCache first = JdbcComputeCache.builder(postgres.dataSource()).tablePrefix("before11_")
                .initializeSchema(true).build()) {
            assertThat(first.fetchOrCompute("kept", Duration.ofMinutes(10), () -> "v1")).isEqualTo("v1");
        }
        try (Connection connection = postgres.server().connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP FUNCTION before11_compute_read");
            statement.execute("DROP FUNCTION before11_compute_back_off");
            statement.execute("ALTER TABLE before11_value DROP COLUMN stale_until, DROP COLUMN backoff_until");
        }
        assertThatThrownBy(() -> JdbcComputeCache.builder(postgres.dataSource()).tablePrefix("before11_").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before11_compute_read")
                .hasMessageContaining("locks.jdbc.initialize-schema");

        try (JdbcComputeCache upgraded = JdbcComputeCache.builder(postgres.dataSource()).tablePrefix("before11_")
                .initializeSchema(true).build()) {
            assertThat(upgraded.fetchOrCompute("kept", Duration.ofMinutes(10), () -> "v2")).isEqualTo("v1");
            ComputeOptions stale = upgraded.defaultOptions().withStaleIfError(Duration.ofHours(1));
            assertThat(upgraded.fetchOrCompute("new", stale, () -> "n1")).isEqualTo("n1");
            try (Connection connection = postgres.server().connect();
                    Statement statement = connection.createStatement()) {
                statement.execute("UPDATE before11_value SET expires_at = clock_timestamp() - interval '1 second'"
                        + " WHERE value_key = 'new'");
            }
            Supplier<String> down = () -> {
                throw new IllegalStateException("down");
            };
            assertThat(upgraded.fetchOrCompute("new", stale, down)).isEqualTo("n1");
        }
    }

    @Test
    void aDatabaseThatCannotBeReachedAtStartShouldNotStopTheBuild() throws Exception {
        postgres.server().stop();
        JdbcLockRegistry.builder(postgres.dataSource()).timeout(Duration.ofSeconds(1)).cleanupInterval(Duration.ZERO)
                .build().close();
    }

    @Test
    void aSchemaDroppedAtRuntimeShouldBeNamedInTheFailure() throws Exception {
        try (JdbcLockRegistry registry = JdbcLockRegistry.builder(postgres.dataSource()).tablePrefix("dropped_")
                .initializeSchema(true).cleanupInterval(Duration.ZERO).build()) {
            try (Connection connection = postgres.server().connect();
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP FUNCTION dropped_acquire");
            }
            assertThatThrownBy(() -> registry.tryAcquire(List.of("k")))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("schema")
                    .hasMessageContaining("dropped_acquire")
                    .hasMessageContaining("locks.jdbc.initialize-schema")
                    .hasMessageNotContaining("explicit type casts");
        }
    }

    /**
     * A schema whose locks_keys and locks_queued are LANGUAGE sql functions, as before (planned again in every
     * transaction), gets the PL/pgSQL locks_keys from the shipped script, in place, and a held key stays held through
     * it. The script no longer defines locks_queued (locks_queued_ahead took its place): the old one stays, unused.
     */
    @Test
    void theFormerSqlHelpersShouldBeReplacedInPlace() throws Exception {
        try (JdbcLockRegistry holder = JdbcLockRegistry.builder(postgres.dataSource()).tablePrefix("sqlhelpers_")
                .initializeSchema(true).cleanupInterval(Duration.ZERO).build()) {
            Lease held = holder.acquire(List.of("job"));
            try (Connection connection = postgres.server().connect();
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE OR REPLACE FUNCTION sqlhelpers_keys(p_keys text[]) RETURNS text[]"
                        + " LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT ARRAY(SELECT sqlhelpers_key(u.k)"
                        + " FROM unnest(p_keys) WITH ORDINALITY AS u(k, i) ORDER BY u.i) $$");
                statement.execute("CREATE OR REPLACE FUNCTION sqlhelpers_queued(p_keys text[], p_owner text,"
                        + " p_order bigint, p_now timestamptz) RETURNS bigint LANGUAGE sql STABLE AS $$"
                        + " SELECT NULL::bigint $$");
                assertThat(languages(statement, "sqlhelpers_keys")).containsOnly("sql");
                try (JdbcLockRegistry upgraded = JdbcLockRegistry.builder(postgres.dataSource())
                        .tablePrefix("sqlhelpers_").initializeSchema(true).cleanupInterval(Duration.ZERO).build()) {
                    assertThat(languages(statement, "sqlhelpers_keys")).containsOnly("plpgsql");
                    assertThat(languages(statement, "sqlhelpers_queued_ahead")).containsOnly("plpgsql");
                    assertThat(upgraded.tryAcquire(List.of("job"))).isEmpty();
                    held.close();
                    try (Lease taken = upgraded.tryAcquire(List.of("job")).orElseThrow()) {
                        assertThat(taken.fencingToken()).isPositive();
                    }
                }
            }
        }
    }

    private static List<String> languages(Statement statement, String function) throws Exception {
        List<String> languages = new java.util.ArrayList<>();
        try (java.sql.ResultSet rows = statement.executeQuery("SELECT l.lanname FROM pg_proc p JOIN pg_language l"
                + " ON l.oid = p.prolang WHERE p.proname = '" + function + "'")) {
            while (rows.next()) {
                languages.add(rows.getString(1));
            }
        }
        assertThat(languages).hasSize(1);
        return languages;
    }
}
