package dev.locks.benchmarks.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The rivals' tables, made the way their users make them: Spring Integration's from the
 * {@code schema-postgresql.sql} or {@code schema-mysql.sql} its jar ships ({@code INT_LOCK} among its other tables),
 * ShedLock's {@code shedlock} table as its documentation gives it for PostgreSQL or MySQL/MariaDB. This project's
 * schema is its builder's {@code initializeSchema(true)}.
 */
public final class RivalTables {

    /** Spring Integration's scripts, on the classpath of {@code spring-integration-jdbc}. */
    static final String SPRING_INTEGRATION_SCRIPT = "org/springframework/integration/jdbc/schema-postgresql.sql";
    static final String SPRING_INTEGRATION_MYSQL_SCRIPT = "org/springframework/integration/jdbc/schema-mysql.sql";

    /** ShedLock's table, from its README (section "JdbcTemplate"), PostgreSQL flavour. */
    static final String SHEDLOCK_TABLE = "CREATE TABLE shedlock(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
            + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";

    /** ShedLock's table, from its README, MySQL/MariaDB flavour (milliseconds kept). */
    static final String SHEDLOCK_MYSQL_TABLE = "CREATE TABLE shedlock(name VARCHAR(64) NOT NULL,"
            + " lock_until TIMESTAMP(3) NOT NULL, locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),"
            + " locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";

    private RivalTables() {
    }

    /**
     * Runs Spring Integration's script for {@code db} as shipped: on PostgreSQL in one statement (the PostgreSQL
     * driver splits it on its own, minding comments and quoting), on MariaDB statement by statement (split at
     * {@code ;}, its comment lines dropped: the driver runs one statement a call). Not idempotent, as shipped: for
     * a new database.
     */
    public static void springIntegration(DataSource dataSource, String db) {
        if (DatabasePool.POSTGRESQL.equals(db)) {
            execute(dataSource, springIntegrationScript());
            return;
        }
        StringBuilder script = new StringBuilder();
        for (String line : script(SPRING_INTEGRATION_MYSQL_SCRIPT).split("\n")) {
            if (!line.strip().startsWith("--")) {
                script.append(line).append('\n');
            }
        }
        for (String statement : script.toString().split(";")) {
            if (!statement.isBlank()) {
                execute(dataSource, statement);
            }
        }
    }

    /** Creates ShedLock's {@code shedlock} table for {@code db}. */
    public static void shedLock(DataSource dataSource, String db) {
        execute(dataSource, DatabasePool.POSTGRESQL.equals(db) ? SHEDLOCK_TABLE : SHEDLOCK_MYSQL_TABLE);
    }

    static String springIntegrationScript() {
        return script(SPRING_INTEGRATION_SCRIPT);
    }

    private static String script(String resource) {
        try (InputStream in = RivalTables.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void execute(DataSource dataSource, String sql) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the tables: " + e.getMessage(), e);
        }
    }
}
