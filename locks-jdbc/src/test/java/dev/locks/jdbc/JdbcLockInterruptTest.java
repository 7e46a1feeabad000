package dev.locks.jdbc;

import dev.locks.jdbc.test.PostgresServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Interrupts on PostgreSQL. */
class JdbcLockInterruptTest extends JdbcLockInterrupts {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected DataSource dataSource() {
        return postgres.dataSource();
    }
}
