package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer.Driver;
import dev.locks.jdbc.test.MariaDbServerExtension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link StatementComputeNodesContract} on MariaDB through MySQL Connector/J (the MySQL dialect's
 * statements: MySQL 8 itself cannot be installed here).
 */
class MySqlDriverComputeNodesTest extends StatementComputeNodesContract {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(Driver.MYSQL);

    @Override
    StatementDatabase database() {
        return StatementDatabase.of(mariadb);
    }
}
