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
 * {@code schema-postgresql.sql} its jar ships ({@code INT_LOCK} among its other tables), ShedLock's
 * {@code shedlock} table as its documentation gives it for PostgreSQL. This project's schema is its
 * builder's {@code initializeSchema(true)}.
 */
public final class PostgresTables {

    /** Spring Integration's script, on the classpath of {@code spring-integration-jdbc}. */
    static final String SPRING_INTEGRATION_SCRIPT = "org/springframework/integration/jdbc/schema-postgresql.sql";

    /** ShedLock's table, from its README (section "JdbcTemplate"), PostgreSQL flavour. */
    static final String SHEDLOCK_TABLE = "CREATE TABLE shedlock(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
            + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";

    private PostgresTables() {
    }

    /**
     * Runs Spring Integration's PostgreSQL script as shipped, in one statement (the PostgreSQL driver splits it
     * on its own, minding comments and quoting). Not idempotent, as shipped: for a new database.
     */
    public static void springIntegration(DataSource dataSource) {
        execute(dataSource, springIntegrationScript());
    }

    /** Creates ShedLock's {@code shedlock} table. */
    public static void shedLock(DataSource dataSource) {
        execute(dataSource, SHEDLOCK_TABLE);
    }

    static String springIntegrationScript() {
        try (InputStream in = PostgresTables.class.getClassLoader().getResourceAsStream(SPRING_INTEGRATION_SCRIPT)) {
            if (in == null) {
                throw new IllegalStateException(SPRING_INTEGRATION_SCRIPT + " is not on the classpath");
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
