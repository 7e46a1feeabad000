package dev.locks.jdbc;

import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Interrupts on MariaDB through MySQL Connector/J: another driver's socket I/O under a caller's interrupt (the MySQL
 * dialect runs the same statements).
 */
class MySqlDriverLockInterruptTest extends JdbcLockInterrupts {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MYSQL);

    @Override
    protected DataSource dataSource() {
        return mariadb.dataSource();
    }
}
