package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer.Driver;
import dev.locks.jdbc.test.MariaDbServerExtension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SqlComputeCacheContract} on MariaDB, a server of the test's own, through MariaDB Connector/J. */
class MariaDbComputeCacheContractTest extends SqlComputeCacheContract {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(Driver.MARIADB);

    @Override
    StatementDatabase database() {
        return StatementDatabase.of(mariadb);
    }
}
