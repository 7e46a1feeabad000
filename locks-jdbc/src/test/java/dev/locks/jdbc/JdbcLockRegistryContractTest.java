package dev.locks.jdbc;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import dev.locks.contract.LockRegistryContract;
import dev.locks.contract.SharedLocksContract;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JDBC registry on PostgreSQL passes the same contract as the in-memory and Redis ones. */
class JdbcLockRegistryContractTest extends LockRegistryContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return JdbcLockRegistry.builder(postgres.dataSource()).initializeSchema(true).defaultOptions(defaults)
                .cleanupInterval(Duration.ZERO).build();
    }

    /** 8 x 1,000: each acquisition is two round trips to a real server, as on Redis (which runs 8 x 2,000). */
    @Override
    protected int mutualExclusionRounds() {
        return 1_000;
    }

    /** {@link LockRegistry#acquireAsync} on the same backend. */
    @Nested
    class AsyncAcquire extends AsyncAcquireContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return JdbcLockRegistryContractTest.this.newRegistry(defaults);
        }
    }

    /** Shared and counted locks on the same backend. */
    @Nested
    class SharedLocks extends SharedLocksContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return JdbcLockRegistryContractTest.this.newRegistry(defaults);
        }

        /** 200 instead of 500: each acquisition is two round trips to a real server. */
        @Override
        protected int rounds() {
            return 200;
        }
    }
}
