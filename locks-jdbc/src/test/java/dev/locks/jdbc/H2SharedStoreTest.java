package dev.locks.jdbc;

import dev.locks.jdbc.test.H2DatabaseExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The rows of shared and counted locks on H2. */
class H2SharedStoreTest extends StatementSharedStoreContract {

    @RegisterExtension
    static final H2DatabaseExtension h2 = new H2DatabaseExtension();

    @Override
    protected DataSource dataSource() {
        return h2.dataSource();
    }

    @Override
    protected Dialect dialect() {
        return Dialect.H2;
    }
}
