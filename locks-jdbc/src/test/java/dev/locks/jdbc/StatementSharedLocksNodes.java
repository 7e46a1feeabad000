package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LockRegistry;
import dev.locks.contract.SharedLocksNodesContract;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * SPEC 13 across two nodes on one database without stored routines (MariaDB, MySQL, H2), each with its own
 * connections, as {@link JdbcSharedLocksTest} on PostgreSQL. Each subclass names its database and its clock.
 */
abstract class StatementSharedLocksNodes extends SharedLocksNodesContract {

    protected abstract DataSource dataSource();

    /** The database's time now in UTC, as SQL. */
    protected abstract String now();

    @Override
    protected LockRegistry newNode(boolean watchdog) {
        return JdbcLockRegistry.builder(dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .watchdog(watchdog).build();
    }

    /** No live lock, holder or ticket (free and expired rows wait for the sweep, and count for nothing). */
    @Override
    protected void assertNothingLeftBehind() throws Exception {
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT (SELECT count(*) FROM locks_lock WHERE owner_id <> ''"
                        + " AND expires_at > " + now() + ") + (SELECT count(*) FROM locks_holder WHERE expires_at > "
                        + now() + ") + (SELECT count(*) FROM locks_waiter WHERE expires_at > " + now() + ")")) {
            row.next();
            assertThat(row.getLong(1)).isZero();
        }
    }
}
