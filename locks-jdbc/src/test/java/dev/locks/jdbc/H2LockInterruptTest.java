package dev.locks.jdbc;

import dev.locks.LockRegistry;
import dev.locks.contract.LockInterruptContract;
import dev.locks.jdbc.test.H2DatabaseExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Interrupts on H2: an interrupted caller still takes free keys; an interrupted waiter leaves nothing behind. */
class H2LockInterruptTest extends LockInterruptContract {

    @RegisterExtension
    static final H2DatabaseExtension db = new H2DatabaseExtension();

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
