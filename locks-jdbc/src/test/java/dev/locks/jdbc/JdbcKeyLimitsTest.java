package dev.locks.jdbc;

import dev.locks.jdbc.test.PostgresServerExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Key limits on PostgreSQL. */
class JdbcKeyLimitsTest extends JdbcKeyLimits {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    protected DataSource dataSource() {
        return postgres.dataSource();
    }
}
