package dev.locks.jdbc;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.contract.ComputeCacheContract;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The JDBC cache on PostgreSQL passes the same contract as the in-memory and Redis ones. Another node is another
 * cache on a data source of its own (so also its own listening connection). Time is the contract's manual clock
 * on this JVM's side and, in the database, every expiry brought forward as the test lets time pass; the
 * database's own clock runs on meanwhile, so the tests look at expiries {@link #precision()} early and late.
 */
class JdbcComputeCacheContractTest extends ComputeCacheContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private final List<JdbcComputeCache> nodes = new CopyOnWriteArrayList<>();
    private DataSource peerDataSource;

    @Override
    protected ComputeCache newCache(ComputeOptions defaults, LocksClock clock) {
        return node(postgres.dataSource(), defaults, clock);
    }

    @Override
    protected ComputeCache newPeer(ComputeCache cache, ComputeOptions defaults, LocksClock clock) {
        if (peerDataSource == null) {
            peerDataSource = postgres.server().dataSource();
        }
        return node(peerDataSource, defaults, clock);
    }

    @Override
    protected void elapse(Duration duration) {
        super.elapse(duration);
        elapse(duration.toMillis());
    }

    /**
     * 400 ms, where Redis's contract test takes 200: between a value's write and the look just before its expiry
     * run a begin, a complete and the two UPDATEs that move the expiries, each a round trip with a transaction,
     * and the database's clock runs on meanwhile; under a load average of 17 on 2 cores 200 ms was once not
     * enough (completeWithoutTtlShouldUseTheTtlOfBegin saw its value expire early).
     */
    @Override
    protected Duration precision() {
        return Duration.ofMillis(400);
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(JdbcComputeCache::close);
    }

    /** Brings every expiry in the database {@code millis} forward, as if that much time had passed there. */
    static void elapse(long millis) {
        String by = "interval '" + millis + " milliseconds'";
        try (Connection connection = postgres.server().connect(); Statement statement = connection.createStatement()) {
            statement.execute("UPDATE locks_value SET expires_at = expires_at - " + by + " WHERE expires_at IS NOT NULL");
            statement.execute("UPDATE locks_compute SET expires_at = expires_at - " + by);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private JdbcComputeCache node(DataSource dataSource, ComputeOptions defaults, LocksClock clock) {
        JdbcComputeCache node = JdbcComputeCache.builder(dataSource).initializeSchema(nodes.isEmpty())
                .defaultOptions(defaults).clock(clock).build();
        nodes.add(node);
        return node;
    }
}
