package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two nodes on MariaDB through MariaDB Connector/J. */
class MariaDbLockNodesTest extends StatementLockNodes {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MARIADB);

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }
}
