package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LockRegistry;
import dev.locks.contract.SharedLocksNodesContract;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** SPEC 13 across two nodes on one PostgreSQL server, each with its own connections. */
class JdbcSharedLocksTest extends SharedLocksNodesContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected LockRegistry newNode(boolean watchdog) {
        return JdbcLockRegistry.builder(postgres.dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .watchdog(watchdog).build();
    }

    /** No live lock, holder or ticket (expired rows wait for the sweep, and count for nothing). */
    @Override
    protected void assertNothingLeftBehind() throws Exception {
        assertThat(postgres.server().queryLong("SELECT (SELECT count(*) FROM locks_lock WHERE expires_at > now())"
                + " + (SELECT count(*) FROM locks_holder WHERE expires_at > now())"
                + " + (SELECT count(*) FROM locks_waiter WHERE expires_at > now())")).isZero();
    }
}
