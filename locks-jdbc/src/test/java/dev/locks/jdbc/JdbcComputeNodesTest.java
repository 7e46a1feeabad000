package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.jdbc.test.StatementDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two nodes in one JVM, each a cache on a data source of its own (so its own connections and listening
 * connection), on one PostgreSQL, in real time: the {@link SqlComputeNodesContract}, and expiry by the database's
 * clock as its timestamps show it.
 */
class JdbcComputeNodesTest extends SqlComputeNodesContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    StatementDatabase database() {
        return StatementDatabase.of(postgres);
    }

    @Test
    void valueShouldExpireOnEveryNodeAfterItsTtlByTheDatabasesClock() throws SQLException {
        AtomicInteger computations = new AtomicInteger();
        Duration ttl = Duration.ofMillis(400);
        assertThat(a.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v1");
        Instant expires = postgres.server().queryInstant("SELECT expires_at FROM locks_value WHERE value_key = 'k'");
        Instant stored = postgres.server().queryInstant("SELECT stored_at FROM locks_value WHERE value_key = 'k'");
        assertThat(Duration.between(stored, expires)).isEqualTo(ttl);
        assertThat(b.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v1");

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> b.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet()), "v2"::equals);

        assertThat(postgres.server().queryInstant("SELECT clock_timestamp()")).as("by the database's clock")
                .isAfterOrEqualTo(expires);
        assertThat(a.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v2");
    }
}
