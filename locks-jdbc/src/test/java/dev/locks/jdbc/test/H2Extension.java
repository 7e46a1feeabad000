package dev.locks.jdbc.test;

import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An H2 database in memory per test class (kept while the JVM runs), emptied of computations before each test of
 * a class whose schema is in place. Register it as
 * <pre>{@code @RegisterExtension static final H2Extension h2 = new H2Extension();}</pre>
 */
public final class H2Extension implements BeforeEachCallback, StatementDatabase {

    private final String url = "jdbc:h2:mem:locks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private final DataSource dataSource = newDataSource();

    @Override
    public void beforeEach(ExtensionContext context) {
        if (queryLong("SELECT COUNT(*) FROM information_schema.tables WHERE LOWER(table_name) = 'locks_compute'") > 0) {
            emptyComputeTables();
        }
    }

    @Override
    public DataSource dataSource() {
        return dataSource;
    }

    @Override
    public DataSource otherNode() {
        return newDataSource();
    }

    private DataSource newDataSource() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(url);
        return h2;
    }
}
