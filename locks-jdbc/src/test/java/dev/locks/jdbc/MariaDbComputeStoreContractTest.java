package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer.Driver;
import dev.locks.jdbc.test.MariaDbServerExtension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SqlComputeStoreContract} on MariaDB, a server of the test's own, through MariaDB Connector/J. */
class MariaDbComputeStoreContractTest extends SqlComputeStoreContract {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(Driver.MARIADB);

    @Override
    StatementDatabase database() {
        return StatementDatabase.of(mariadb);
    }
}
