package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The rows of shared and counted locks on MariaDB. */
class MariaDbSharedStoreTest extends StatementSharedStoreContract {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MARIADB);

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }

    @Override
    protected Dialect dialect() {
        return Dialect.MARIADB;
    }
}
