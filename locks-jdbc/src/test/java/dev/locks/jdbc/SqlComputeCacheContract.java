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
 * The JDBC cache passes the same contract on every dialect as the in-memory and Redis ones. Another node is another
 * cache on a data source of its own. Time is the contract's manual clock on this JVM's side and, in the database,
 * every expiry brought forward as the test lets time pass; the database's own clock runs on meanwhile, so the tests
 * look at expiries {@link #precision()} early and late.
 */
abstract class SqlComputeCacheContract extends ComputeCacheContract {

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
        database().execute(elapsed(duration.toMillis()));
    }

    /**
     * What brings every expiry in the database {@code millis} forward: the statement store's times are milliseconds
     * since the epoch.
     */
    String[] elapsed(long millis) {
        return new String[] {"UPDATE locks_value SET expires_at = expires_at - " + millis + ", stored_at = stored_at - "
                + millis + " WHERE expires_at IS NOT NULL",
                "UPDATE locks_compute SET expires_at = expires_at - " + millis};
    }

    /**
     * 400 ms, where Redis's contract test takes 200: between a value's write and the look just before its expiry
     * run a begin, a complete and the statements that move the expiries, each a round trip with a transaction, and
     * the database's clock runs on meanwhile; under a load average of 17 on 2 cores 200 ms was once not enough
     * (completeWithoutTtlShouldUseTheTtlOfBegin saw its value expire early on PostgreSQL).
     */
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
