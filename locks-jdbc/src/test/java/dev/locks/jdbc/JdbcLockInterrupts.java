package dev.locks.jdbc;

import dev.locks.LockRegistry;
import dev.locks.contract.LockInterruptContract;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Interrupts on a database: a driver's I/O (or H2's row-lock waits, in the caller's thread) must not turn a caller's
 * interrupt status into a failed statement or a half-done acquire, nor swallow it; an interrupted waiter stops
 * waiting and leaves nothing behind.
 */
abstract class JdbcLockInterrupts extends LockInterruptContract {

    protected abstract DataSource dataSource();

    @Override
    protected LockRegistry newRegistry() {
        return JdbcLockRegistry.builder(dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO).build();
    }

    /** 200 rather than 500: each waiter's attempts are round trips to a real server on a shared machine. */
    @Override
    protected int waiters() {
        return 200;
    }
}
