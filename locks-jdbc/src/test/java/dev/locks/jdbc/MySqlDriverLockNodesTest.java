package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two nodes on MariaDB through MySQL Connector/J (as MySQL 8 would be reached). */
class MySqlDriverLockNodesTest extends StatementLockNodes {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MYSQL);

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }
}
