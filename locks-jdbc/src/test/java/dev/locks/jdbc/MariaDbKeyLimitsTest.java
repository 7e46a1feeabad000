package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Key limits on MariaDB. */
class MariaDbKeyLimitsTest extends JdbcKeyLimits {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }
}
