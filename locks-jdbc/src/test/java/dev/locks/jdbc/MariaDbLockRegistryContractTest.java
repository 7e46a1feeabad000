package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import dev.locks.contract.SharedLocksContract;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JDBC registry on MariaDB, through MariaDB Connector/J, passes the lock contract. */
class MariaDbLockRegistryContractTest extends StatementLockRegistryContract {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MARIADB);

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }

    /** {@link dev.locks.LockRegistry#acquireAsync} on the same backend. */
    @Nested
    class AsyncAcquire extends AsyncAcquireContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return MariaDbLockRegistryContractTest.this.newRegistry(defaults);
        }
    }

    /** Shared and counted locks on the same backend. */
    @Nested
    class SharedLocks extends SharedLocksContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return MariaDbLockRegistryContractTest.this.newRegistry(defaults);
        }

        /** 200 instead of 500, as on PostgreSQL: each acquisition is a few round trips to a real server. */
        @Override
        protected int rounds() {
            return 200;
        }
    }
}
