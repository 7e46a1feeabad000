package dev.locks.jdbc;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.contract.ComputeCacheContract;
import dev.locks.jdbc.test.StatementDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;

/**
 * The JDBC cache on a database without stored routines or notifications passes the same contract as on PostgreSQL.
 * Another node is another cache on a data source of its own. Time is the contract's manual clock on this JVM's side
 * and, in the database, every expiry brought forward as the test lets time pass ({@link #precision()} as on
 * PostgreSQL: the database's own clock runs on meanwhile).
 */
abstract class StatementComputeCacheContract extends ComputeCacheContract {

    private final List<JdbcComputeCache> nodes = new CopyOnWriteArrayList<>();

    /** The database of the test class. */
    abstract StatementDatabase database();

    @Override
    protected ComputeCache newCache(ComputeOptions defaults, LocksClock clock) {
        return node(false, defaults, clock);
    }

    @Override
    protected ComputeCache newPeer(ComputeCache cache, ComputeOptions defaults, LocksClock clock) {
        return node(true, defaults, clock);
    }

    @Override
    protected void elapse(Duration duration) {
        super.elapse(duration);
        long millis = duration.toMillis();
        database().execute("UPDATE locks_value SET expires_at = expires_at - " + millis + ", stored_at = stored_at - "
                + millis + " WHERE expires_at IS NOT NULL", "UPDATE locks_compute SET expires_at = expires_at - " + millis);
    }

    @Override
    protected Duration precision() {
        return Duration.ofMillis(400);
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(JdbcComputeCache::close);
    }

    private JdbcComputeCache node(boolean other, ComputeOptions defaults, LocksClock clock) {
        JdbcComputeCache node = JdbcComputeCache.builder(other ? database().otherNode() : database().dataSource())
                .initializeSchema(nodes.isEmpty()).defaultOptions(defaults).clock(clock).build();
        nodes.add(node);
        return node;
    }
}
