package dev.locks.jdbc;

import dev.locks.LockRegistry;
import dev.locks.contract.LockInterruptContract;
import dev.locks.jdbc.test.MariaDbServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Interrupts on MariaDB: an interrupted caller still takes free keys; an interrupted waiter leaves nothing behind. */
class MariaDbLockInterruptTest extends LockInterruptContract {

    @RegisterExtension
    static final MariaDbServerExtension db = new MariaDbServerExtension();

    @Override
    protected LockRegistry newRegistry() {
        return JdbcLockRegistry.builder(db.dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .build();
    }

    /** 200 rather than 500, as on PostgreSQL: each waiter's attempts are round trips. */
    @Override
    protected int waiters() {
        return 200;
    }
}
