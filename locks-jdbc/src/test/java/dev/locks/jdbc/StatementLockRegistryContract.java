package dev.locks.jdbc;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.LockRegistryContract;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The lock contract on a database without stored routines (MariaDB, MySQL, H2): each subclass names its database;
 * the same suites as on PostgreSQL ({@link JdbcLockRegistryContractTest}); each subclass nests the asynchronous one
 * ({@link dev.locks.contract.AsyncAcquireContract}: JUnit runs a nested class of the test class itself).
 */
abstract class StatementLockRegistryContract extends LockRegistryContract {

    protected abstract DataSource dataSource();

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return JdbcLockRegistry.builder(dataSource()).initializeSchema(true).defaultOptions(defaults)
                .cleanupInterval(Duration.ZERO).build();
    }

    /** 8 x 1,000, as on PostgreSQL: each acquisition is a few round trips to a real server. */
    @Override
    protected int mutualExclusionRounds() {
        return 1_000;
    }
}
