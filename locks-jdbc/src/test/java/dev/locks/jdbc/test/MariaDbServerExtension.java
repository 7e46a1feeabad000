package dev.locks.jdbc.test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link MariaDbServer} per test class, as {@link PostgresServerExtension}: started before the first test,
 * running before each (restarted if a test stopped it) with every lock, ticket, value and computation of an earlier
 * test gone, stopped after the last. The data source goes through the given driver:
 * <pre>{@code @RegisterExtension static final MariaDbServerExtension mariadb = new MariaDbServerExtension(Driver.MYSQL);}</pre>
 */
public final class MariaDbServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private final MariaDbServer.Driver driver;
    private MariaDbServer server;
    private DataSource dataSource;

    public MariaDbServerExtension() {
        this(MariaDbServer.Driver.MARIADB);
    }

    public MariaDbServerExtension(MariaDbServer.Driver driver) {
        this.driver = driver;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = MariaDbServer.start();
        dataSource = server.dataSource(driver);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws SQLException {
        if (!server.isRunning()) {
            server.restart();
        }
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery("SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = 'locks' AND (table_name LIKE '%lock' OR table_name LIKE '%\\_value'"
                    + " OR table_name LIKE '%\\_compute' OR table_name LIKE '%\\_waiter' OR table_name LIKE '%\\_holder')")) {
                while (rows.next()) {
                    tables.add(rows.getString(1));
                }
            }
            for (String table : tables) {
                statement.execute("DELETE FROM `" + table + "`");
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
        }
    }

    public MariaDbServer server() {
        return server;
    }

    public MariaDbServer.Driver driver() {
        return driver;
    }

    /** The class's non-pooling data source, through the extension's driver. */
    public DataSource dataSource() {
        return dataSource;
    }
}
