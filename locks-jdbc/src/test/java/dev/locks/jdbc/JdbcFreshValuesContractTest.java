package dev.locks.jdbc;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.FreshValuesContract;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Section 11 on two nodes of one PostgreSQL database, each a cache on a data source of its own. Time passes in the
 * database by moving every stored time of the value table back (write times, expiries, stale windows, back-offs)
 * and every miss's expiry forward, as if that much time had passed there.
 */
class JdbcFreshValuesContractTest extends FreshValuesContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, LocksClock clock, LocksObserver observer,
            Duration errorBackoff, int refreshMaxConcurrent, ComputeCache first) {
        return JdbcComputeCache.builder(first == null ? postgres.dataSource() : postgres.server().dataSource())
                .initializeSchema(first == null).defaultOptions(defaults).clock(clock).observer(observer)
                .errorBackoff(errorBackoff).refreshMaxConcurrent(refreshMaxConcurrent).build();
    }

    @Override
    protected void elapse(Duration duration) {
        super.elapse(duration);
        String by = "interval '" + duration.toMillis() + " milliseconds'";
        try (Connection connection = postgres.server().connect(); Statement statement = connection.createStatement()) {
            statement.execute("UPDATE locks_value SET stored_at = stored_at - " + by + ", expires_at = expires_at - "
                    + by + ", stale_until = stale_until - " + by + ", backoff_until = backoff_until - " + by);
            statement.execute("UPDATE locks_compute SET expires_at = expires_at - " + by);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
