package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Interrupts on MariaDB. */
class MariaDbLockInterruptTest extends JdbcLockInterrupts {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }
}
