package dev.locks.jdbc.test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link PostgresServer} per test class, started before its first test and stopped after its last. Before
 * each test the server is running (restarted if a test stopped it) and holds no lock, value or computation
 * of an earlier test (every table {@code <prefix>lock}, {@code <prefix>value} and {@code <prefix>compute} emptied). Register it as
 * <pre>{@code @RegisterExtension static final PostgresServerExtension postgres = new PostgresServerExtension();}</pre>
 */
public final class PostgresServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private PostgresServer server;
    private DataSource dataSource;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = PostgresServer.start();
        dataSource = server.dataSource();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws SQLException {
        if (!server.isRunning()) {
            server.restart();
        }
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DO $$ DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables"
                    + " WHERE schemaname = 'public' AND (tablename LIKE '%lock' OR tablename LIKE '%\\_value'"
                    + " OR tablename LIKE '%\\_compute' OR tablename LIKE '%\\_waiter') LOOP"
                    + " EXECUTE 'TRUNCATE ' || quote_ident(t); END LOOP; END $$");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
        }
    }

    public PostgresServer server() {
        return server;
    }

    /** The class's non-pooling data source. */
    public DataSource dataSource() {
        return dataSource;
    }
}
