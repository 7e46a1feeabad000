package dev.locks.jdbc;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.FreshValuesContract;
import dev.locks.jdbc.test.StatementDatabase;
import java.time.Duration;

/**
 * Section 11 on two nodes of one database without stored routines, each a cache on a data source of its own. Time
 * passes in the database by moving every stored time of the value table back and every miss's expiry forward.
 */
abstract class StatementFreshValuesContract extends FreshValuesContract {

    /** The database of the test class. */
    abstract StatementDatabase database();

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, LocksClock clock, LocksObserver observer,
            Duration errorBackoff, int refreshMaxConcurrent, ComputeCache first) {
        return JdbcComputeCache.builder(first == null ? database().dataSource() : database().otherNode())
                .initializeSchema(first == null).defaultOptions(defaults).clock(clock).observer(observer)
                .errorBackoff(errorBackoff).refreshMaxConcurrent(refreshMaxConcurrent).build();
    }

    @Override
    protected void elapse(Duration duration) {
        super.elapse(duration);
        long by = duration.toMillis();
        database().execute("UPDATE locks_value SET stored_at = stored_at - " + by + ", expires_at = expires_at - "
                + by + ", stale_until = stale_until - " + by + ", backoff_until = backoff_until - " + by,
                "UPDATE locks_compute SET expires_at = expires_at - " + by);
    }
}
