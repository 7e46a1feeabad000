package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Shared and counted locks across two nodes on MariaDB, through MariaDB Connector/J. */
class MariaDbSharedLocksTest extends StatementSharedLocksNodes {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MARIADB);

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }

    @Override
    protected String now() {
        return "UTC_TIMESTAMP(6)";
    }

    /** The rows behind them, on the same database. */
    @Nested
    class Rows extends StatementSharedStoreContract {

        @Override
        protected DataSource dataSource() {
            return mariadb.dataSource();
        }

        @Override
        protected Dialect dialect() {
            return Dialect.MARIADB;
        }
    }
}
