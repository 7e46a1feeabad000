package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.LockUnavailableException;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
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
}
