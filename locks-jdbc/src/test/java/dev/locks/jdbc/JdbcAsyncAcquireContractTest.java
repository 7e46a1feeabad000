package dev.locks.jdbc;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JDBC registry's asynchronous acquire on PostgreSQL keeps the same promises as the in-memory one's. */
class JdbcAsyncAcquireContractTest extends AsyncAcquireContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return JdbcLockRegistry.builder(postgres.dataSource()).initializeSchema(true).defaultOptions(defaults)
                .cleanupInterval(Duration.ZERO).build();
    }

    /** 8 x 100: each acquisition is two round trips to a real server. */
    @Override
    protected int mutualExclusionRounds() {
        return 100;
    }
}
