package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Key limits on MariaDB through MySQL Connector/J (the MySQL dialect runs the same statements). */
class MySqlDriverKeyLimitsTest extends JdbcKeyLimits {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MYSQL);

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }
}
