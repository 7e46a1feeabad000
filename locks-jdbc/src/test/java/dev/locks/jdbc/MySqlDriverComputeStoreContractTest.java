package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer.Driver;
import dev.locks.jdbc.test.MariaDbServerExtension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SqlComputeStoreContract} on MariaDB through MySQL Connector/J (the MySQL dialect's statements). */
class MySqlDriverComputeStoreContractTest extends SqlComputeStoreContract {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(Driver.MYSQL);

    @Override
    StatementDatabase database() {
        return StatementDatabase.of(mariadb);
    }
}
