package dev.locks.jdbc.test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One in-memory H2 database per test class ({@link H2Databases}), with every lock, ticket, value and computation of
 * an earlier test deleted before each test, as {@link PostgresServerExtension} does on its server.
 */
public final class H2DatabaseExtension implements BeforeAllCallback, BeforeEachCallback {

    private DataSource dataSource;

    @Override
    public void beforeAll(ExtensionContext context) {
        dataSource = H2Databases.newDatabase();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery("SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = 'PUBLIC' AND (table_name LIKE '%LOCK' OR table_name LIKE '%\\_VALUE'"
                    + " OR table_name LIKE '%\\_COMPUTE' OR table_name LIKE '%\\_WAITER' OR table_name LIKE '%\\_HOLDER')")) {
                while (rows.next()) {
                    tables.add(rows.getString(1));
                }
            }
            for (String table : tables) {
                statement.execute("DELETE FROM \"" + table + "\"");
            }
        }
    }

    /** The class's database (a non-pooling data source). */
    public DataSource dataSource() {
        return dataSource;
    }
}
