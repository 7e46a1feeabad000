package dev.locks.jdbc;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The databases the JDBC backend speaks to (SPEC 9), each with its shipped schema ({@code schema-<id>.sql}): what
 * differs between them besides the statements themselves (how a session's timeouts are set, how the server process
 * of an abandoned call is ended, which errors mean a missing schema). Detected from the connection's metadata, or
 * named by {@code locks.jdbc.dialect}.
 *
 * <p>PostgreSQL runs the schema's functions and listens for release notices; the others run plain statements
 * ({@link StatementLockStore}: no stored routines) and poll for releases of other nodes.
 */
enum Dialect {

    POSTGRESQL("postgresql", "PostgreSQL") {
        @Override
        Session open(Connection connection, int serverTimeoutMillis) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(OwnConnections.SESSION)) {
                statement.setString(1, Integer.toString(serverTimeoutMillis));
                statement.setString(2, Integer.toString(serverTimeoutMillis));
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    return new Session(row.getInt(1), row.getString(2), row.getString(3), row.getString(4));
                }
            }
        }

        @Override
        void restore(Connection connection, Session session) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT set_config('statement_timeout', ?, false), set_config('lock_timeout', ?, false)")) {
                statement.setString(1, session.statementTimeout());
                statement.setString(2, session.lockTimeout());
                statement.executeQuery().close();
            }
        }

        @Override
        boolean missingObject(SQLException e) {
            return "42883".equals(e.getSQLState()) || "42P01".equals(e.getSQLState())
                    || "42703".equals(e.getSQLState());
        }
    },

    MARIADB("mariadb", "MariaDB") {
        @Override
        Session open(Connection connection, int serverTimeoutMillis) throws SQLException {
            Session session = mysqlSession(connection, "@@SESSION.max_statement_time");
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET SESSION max_statement_time = " + serverTimeoutMillis / 1000.0
                        + ", innodb_lock_wait_timeout = " + lockWaitSeconds(serverTimeoutMillis));
            }
            return session;
        }

        @Override
        void restore(Connection connection, Session session) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET SESSION max_statement_time = " + Double.parseDouble(session.statementTimeout())
                        + ", innodb_lock_wait_timeout = " + Long.parseLong(session.lockTimeout()));
            }
        }
    },

    /** MySQL 8: the statements of MariaDB; only the lock wait timeout is set ({@code max_statement_time} is MariaDB's). */
    MYSQL("mysql", "MySQL") {
        @Override
        Session open(Connection connection, int serverTimeoutMillis) throws SQLException {
            Session session = mysqlSession(connection, "''");
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET SESSION innodb_lock_wait_timeout = " + lockWaitSeconds(serverTimeoutMillis));
            }
            return session;
        }

        @Override
        void restore(Connection connection, Session session) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET SESSION innodb_lock_wait_timeout = " + Long.parseLong(session.lockTimeout()));
            }
        }
    },

    /**
     * H2 2.x, embedded (development and tests): the session's lock timeout (H2's default, 1 s) is left as it is, a
     * statement that waited longer for a row is tried again.
     */
    H2("h2", "H2") {
        @Override
        Session open(Connection connection, int serverTimeoutMillis) throws SQLException {
            try (Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("SELECT SESSION_ID()")) {
                row.next();
                return new Session(row.getInt(1), "", "", "");
            }
        }

        @Override
        void restore(Connection connection, Session session) {
            // nothing was changed
        }

        @Override
        void endAbandoned(Connection connection, List<Integer> pids, int timeoutMillis) {
            // in the same JVM (or a server of the application's): an abandoned statement ends with its session
        }
    };

    /** The property that names the dialect instead of the detection. */
    static final String PROPERTY = "locks.jdbc.dialect";

    private final String id;
    private final String product;

    Dialect(String id, String product) {
        this.id = id;
        this.product = product;
    }

    /** Its name in {@code locks.jdbc.dialect} and in the name of its schema. */
    String id() {
        return id;
    }

    /** The database's name, for messages. */
    String product() {
        return product;
    }

    /** The shipped schema on the classpath. */
    String script() {
        return "dev/locks/jdbc/schema-" + id + ".sql";
    }

    /** Whether the database tells listeners of releases ({@code LISTEN/NOTIFY}); else other nodes poll. */
    boolean notifies() {
        return this == POSTGRESQL;
    }

    /** MariaDB and MySQL: the same statements. */
    boolean mysqlFamily() {
        return this == MARIADB || this == MYSQL;
    }

    /**
     * The server process of a new connection and its session's timeouts as they were, after setting this library's
     * own (a little shorter than the client's timeout, so that the server gives up first).
     */
    abstract Session open(Connection connection, int serverTimeoutMillis) throws SQLException;

    /** Sets the session's timeouts back as {@link #open} found them. */
    abstract void restore(Connection connection, Session session) throws SQLException;

    /** Whether the error says that a table, function or column of the schema is missing. */
    boolean missingObject(SQLException e) {
        String state = e.getSQLState();
        return "42S02".equals(state) || "42S22".equals(state) || "42102".equals(state) || "42122".equals(state)
                || e.getErrorCode() == 1146 || e.getErrorCode() == 1054;
    }

    /**
     * Ends the server processes {@code pids} of calls whose outcome is unknown and waits until none is listed (at
     * most {@code timeoutMillis}).
     *
     * @throws SQLException when one is still there
     */
    void endAbandoned(Connection connection, List<Integer> pids, int timeoutMillis) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (int pid : pids) {
                try {
                    statement.execute("KILL CONNECTION " + pid);
                } catch (SQLException gone) {
                    // 1094 unknown thread id: it ended already
                }
            }
            String listed = "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID IN ("
                    + pids.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")";
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            for (;;) {
                try (ResultSet count = statement.executeQuery(listed)) {
                    count.next();
                    if (count.getLong(1) == 0) {
                        return;
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new SQLException("the server still runs a call whose outcome is unknown", "70100");
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted", "70100", e);
                }
            }
        }
    }

    /** A connection's server process and the session's timeouts as they were before {@link #open}. */
    record Session(int pid, String started, String statementTimeout, String lockTimeout) {
    }

    private static Session mysqlSession(Connection connection, String statementTimeout) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(
                "SELECT CONNECTION_ID(), " + statementTimeout + ", @@SESSION.innodb_lock_wait_timeout")) {
            row.next();
            return new Session(row.getInt(1), "", row.getString(2), row.getString(3));
        }
    }

    /** InnoDB's lock wait timeout is in whole seconds: the server's timeout rounded down, at least 1. */
    private static long lockWaitSeconds(int serverTimeoutMillis) {
        return Math.max(1, serverTimeoutMillis / 1000);
    }

    /**
     * The dialect {@code locks.jdbc.dialect} names.
     *
     * @throws IllegalArgumentException for any other name, naming the property and the dialects
     */
    static Dialect named(String name) {
        for (Dialect dialect : values()) {
            if (dialect.id.equalsIgnoreCase(name.trim())) {
                return dialect;
            }
        }
        throw new IllegalArgumentException(PROPERTY + " must be one of " + ids() + ", was '" + name + "'");
    }

    /**
     * The dialect of the database: its product name (and version: MySQL Connector/J on MariaDB reports "MySQL" with
     * a version that says MariaDB).
     *
     * @throws IllegalStateException for any other database, naming it and the property
     */
    static Dialect of(DatabaseMetaData metadata) throws SQLException {
        Dialect dialect = of(metadata.getDatabaseProductName(), metadata.getDatabaseProductVersion());
        if (dialect == null) {
            throw unsupported(metadata.getDatabaseProductName() + " " + metadata.getDatabaseProductVersion());
        }
        return dialect;
    }

    /** The dialect of a product name and version; null for a database the backend does not support. */
    static Dialect of(String product, String version) {
        String name = String.valueOf(product).toLowerCase(Locale.ROOT);
        if (name.contains("mariadb") || (name.contains("mysql")
                && String.valueOf(version).toLowerCase(Locale.ROOT).contains("mariadb"))) {
            return MARIADB;
        }
        if (name.contains("mysql")) {
            return MYSQL;
        }
        if (name.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (name.equals("h2")) {
            return H2;
        }
        return null;
    }

    /**
     * The dialect of {@code dataSource}'s database, from a connection's metadata; when the database cannot be reached
     * now (it need not be up at startup), from the JDBC URL or the class of the data source.
     *
     * @throws IllegalStateException for a database the backend does not support, or one it cannot tell, naming the
     *         property
     */
    static Dialect detect(DataSource dataSource) {
        SQLException failure;
        try (Connection connection = dataSource.getConnection()) {
            return of(connection.getMetaData());
        } catch (SQLException e) {
            failure = e;
        }
        String hint = hint(dataSource);
        for (Dialect dialect : values()) {
            if (hint.contains(":" + dialect.id + ":") || hint.contains("." + dialect.id + ".")) {
                return dialect;
            }
        }
        throw new IllegalStateException("could not tell which database the DataSource is (it could not be reached: "
                + failure.getMessage() + "): set " + PROPERTY + " to one of " + ids(), failure);
    }

    /** The data source's JDBC URL, if it says (HikariCP's getJdbcUrl, most drivers' getUrl), and its class name. */
    private static String hint(DataSource dataSource) {
        StringBuilder hint = new StringBuilder(dataSource.getClass().getName()).append(' ');
        for (String getter : List.of("getJdbcUrl", "getUrl", "getURL")) {
            try {
                Method method = dataSource.getClass().getMethod(getter);
                hint.append(method.invoke(dataSource)).append(' ');
            } catch (ReflectiveOperationException | RuntimeException | LinkageError ignored) {
                // not this one
            }
        }
        return hint.toString().toLowerCase(Locale.ROOT);
    }

    static IllegalStateException unsupported(String product) {
        return new IllegalStateException("the locks' JDBC backend does not support the database " + product
                + ": it runs on PostgreSQL, MariaDB, MySQL and H2 (set " + PROPERTY + " to one of " + ids()
                + " if the database is one of them under another name)");
    }

    private static String ids() {
        return Arrays.stream(values()).map(Dialect::id).collect(Collectors.joining(", "));
    }
}
