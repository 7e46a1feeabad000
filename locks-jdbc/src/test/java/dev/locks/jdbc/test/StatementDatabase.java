package dev.locks.jdbc.test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A database as the compute tests of every dialect need it: the data source of the test
 * class, another one for a second node, and statements of the test's own.
 */
public interface StatementDatabase {

    /** The data source of the first node. */
    DataSource dataSource();

    /** A data source of its own for another node, on the same database. */
    DataSource otherNode();

    /** Runs {@code sql}, each on a connection of the test's own. */
    default void execute(String... sql) {
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
            for (String one : sql) {
                statement.execute(one);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first column of the first row {@code sql} answers. */
    default long queryLong(String sql) {
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The database of a {@link MariaDbServerExtension}'s server, through its driver. */
    static StatementDatabase of(MariaDbServerExtension mariadb) {
        return new StatementDatabase() {
            @Override
            public DataSource dataSource() {
                return mariadb.dataSource();
            }

            @Override
            public DataSource otherNode() {
                return mariadb.server().dataSource(mariadb.driver());
            }
        };
    }

    /** The database of a {@link PostgresServerExtension}'s server (what the compute tests share across dialects). */
    static StatementDatabase of(PostgresServerExtension postgres) {
        return new StatementDatabase() {
            @Override
            public DataSource dataSource() {
                return postgres.dataSource();
            }

            @Override
            public DataSource otherNode() {
                return postgres.server().dataSource();
            }
        };
    }

    /**
     * The database of an {@link H2DatabaseExtension}: the other node's data source is the same non-pooling one (each
     * connection a new session).
     */
    static StatementDatabase of(H2DatabaseExtension h2) {
        return new StatementDatabase() {
            @Override
            public DataSource dataSource() {
                return h2.dataSource();
            }

            @Override
            public DataSource otherNode() {
                return h2.dataSource();
            }
        };
    }
}
