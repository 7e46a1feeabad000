package dev.locks.jdbc;

import dev.locks.LockRegistry;
import dev.locks.contract.LockInterruptContract;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Interrupts on PostgreSQL: the driver's socket I/O must not turn a caller's interrupt status into a failed
 * statement or a half-done acquire; an interrupted waiter stops waiting and leaves nothing behind.
 */
class JdbcLockInterruptTest extends LockInterruptContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected LockRegistry newRegistry() {
        return JdbcLockRegistry.builder(postgres.dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .build();
    }

    /** 200 rather than 500: each waiter's attempts are round trips to a real server on a shared machine. */
    @Override
    protected int waiters() {
        return 200;
    }
}
