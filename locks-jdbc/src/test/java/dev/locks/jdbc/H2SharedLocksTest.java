package dev.locks.jdbc;

import dev.locks.jdbc.test.H2DatabaseExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Shared and counted locks across two nodes on H2 (in memory). */
class H2SharedLocksTest extends StatementSharedLocksNodes {

    @RegisterExtension
    static final H2DatabaseExtension h2 = new H2DatabaseExtension();

    @Override
    protected DataSource dataSource() {
        return h2.dataSource();
    }

    @Override
    protected String now() {
        return "CAST(CURRENT_TIMESTAMP(6) AT TIME ZONE 'UTC' AS TIMESTAMP(6))";
    }

    /** The rows behind them, on the same database. */
    @Nested
    class Rows extends StatementSharedStoreContract {

        @Override
        protected DataSource dataSource() {
            return h2.dataSource();
        }

        @Override
        protected Dialect dialect() {
            return Dialect.H2;
        }
    }
}
