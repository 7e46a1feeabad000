package dev.locks.jdbc;

import dev.locks.jdbc.test.H2DatabaseExtension;
import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import dev.locks.contract.SharedLocksContract;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JDBC registry on H2 (in memory, in this JVM) passes the lock contract. */
class H2LockRegistryContractTest extends StatementLockRegistryContract {

    @RegisterExtension
    static final H2DatabaseExtension h2 = new H2DatabaseExtension();

    @Override
    protected DataSource dataSource() {
        return h2.dataSource();
    }

    /** {@link dev.locks.LockRegistry#acquireAsync} on the same backend. */
    @Nested
    class AsyncAcquire extends AsyncAcquireContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return H2LockRegistryContractTest.this.newRegistry(defaults);
        }
    }

    /** Shared and counted locks on the same backend. */
    @Nested
    class SharedLocks extends SharedLocksContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return H2LockRegistryContractTest.this.newRegistry(defaults);
        }

        /** 200 instead of 500, as on PostgreSQL: each acquisition is a few round trips to a real server. */
        @Override
        protected int rounds() {
            return 200;
        }
    }
}
