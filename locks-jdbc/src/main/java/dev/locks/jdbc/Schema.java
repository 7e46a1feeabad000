package dev.locks.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The names of the tables, sequence, functions and channel under one table prefix, and the shipped schema
 * script of the database's {@link Dialect} ({@code dev/locks/jdbc/schema-<dialect>.sql}; {@value #SCRIPT} on
 * PostgreSQL) written for that prefix.
 */
final class Schema {

    /** PostgreSQL's schema on the classpath, written for the default prefix ({@link Dialect#script()}: each one's). */
    static final String SCRIPT = "dev/locks/jdbc/schema-postgresql.sql";

    static final String DEFAULT_PREFIX = "locks_";

    /** Lower case (so that quoted and unquoted uses agree, the channel name included), within 63 bytes. */
    private static final Pattern PREFIX = Pattern.compile("[a-z_][a-z0-9_]{0,39}");

    /** What the script creates: tables, sequences and functions, each by name (the kind in group 1). */
    private static final Pattern CREATED = Pattern.compile(
            "CREATE\\s+(?:OR\\s+REPLACE\\s+)?(TABLE|SEQUENCE|FUNCTION)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(\\w+)",
            Pattern.CASE_INSENSITIVE);

    /** Some key of the script's; the lock any node takes while it runs the script. */
    private static final long INIT_LOCK = 0x6c6f636b735f6a64L;

    private final String prefix;
    private final Dialect dialect;

    /** The schema on PostgreSQL. */
    Schema(String prefix) {
        this(prefix, Dialect.POSTGRESQL);
    }

    Schema(String prefix, Dialect dialect) {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("tablePrefix must be lower-case letters, digits and '_', starting with"
                    + " a letter or '_', at most 40 characters (default \"" + DEFAULT_PREFIX + "\"), was "
                    + (prefix == null ? "null" : "'" + prefix + "'"));
        }
        this.prefix = prefix;
        this.dialect = dialect;
    }

    Dialect dialect() {
        return dialect;
    }

    /** The shipped script's path on the classpath. */
    String scriptPath() {
        return dialect.script();
    }

    String prefix() {
        return prefix;
    }

    String table() {
        return prefix + "lock";
    }

    String function(String name) {
        return prefix + name;
    }

    /** The compute cache's values. */
    String valueTable() {
        return prefix + "value";
    }

    /** The records of the compute cache's misses. */
    String computeTable() {
        return prefix + "compute";
    }

    /** The channel of the compute cache's notices. */
    String computeChannel() {
        return prefix + "computed";
    }

    /** The channel of release notices. */
    String channel() {
        return prefix + "released";
    }

    /** The shipped script, with the default prefix replaced by this one. */
    String script() {
        String script;
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(scriptPath())) {
            if (in == null) {
                throw new IllegalStateException(scriptPath() + " is missing from the classpath");
            }
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Pattern.compile("\\b" + DEFAULT_PREFIX).matcher(script).replaceAll(Matcher.quoteReplacement(prefix));
    }

    /**
     * Creates whatever of the schema is missing (the script is idempotent), in one transaction under an
     * advisory lock, so that nodes starting together do not trip over each other.
     */
    void initialize(DataSource dataSource) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            initializeByStatements(dataSource);
            return;
        }
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_advisory_xact_lock(" + INIT_LOCK + ")");
                statement.execute(script());
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    /**
     * Elsewhere the script is plain statements (no routines) run one by one, each committing on its own (DDL does on
     * MariaDB and MySQL), under a named lock ({@code GET_LOCK}) on MariaDB and MySQL; H2 runs them as they come
     * ({@code IF NOT EXISTS} everywhere).
     */
    private void initializeByStatements(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(true);
            String lock = "'" + prefix + "schema'";
            try {
                if (dialect.mysqlFamily()) {
                    statement.execute("SELECT GET_LOCK(" + lock + ", 60)");
                }
                for (String sql : statements(script())) {
                    statement.execute(sql);
                }
            } finally {
                if (dialect.mysqlFamily()) {
                    statement.execute("SELECT RELEASE_LOCK(" + lock + ")");
                }
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    /** The statements of a script without routines: comment lines dropped, split at each ';' that ends a line. */
    static List<String> statements(String script) {
        String code = script.lines().filter(line -> !line.stripLeading().startsWith("--"))
                .collect(java.util.stream.Collectors.joining("\n"));
        List<String> statements = new ArrayList<>();
        for (String statement : code.split(";[ \t]*(\n|$)")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return statements;
    }

    /**
     * The tables, sequences and functions of the shipped script (for this prefix) that the database lacks, in the
     * script's order; empty when the schema is in place. One round trip. A schema older than this library lacks
     * what was added since, and is named by it.
     */
    List<String> missing(Connection connection) throws SQLException {
        List<String> names = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        Matcher created = CREATED.matcher(script());
        while (created.find()) {
            if (!names.contains(created.group(2))) {
                kinds.add(created.group(1).toLowerCase(java.util.Locale.ROOT));
                names.add(created.group(2));
            }
        }
        List<String> missing = new ArrayList<>();
        if (dialect != Dialect.POSTGRESQL) {
            return missingTables(connection, names, kinds);
        }
        try (PreparedStatement statement = connection.prepareStatement("SELECT o.kind || ' ' || o.name"
                + " FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS o(name, kind, position)"
                + " WHERE CASE o.kind WHEN 'function' THEN NOT EXISTS (SELECT 1 FROM pg_proc p"
                + " WHERE p.proname = o.name AND pg_function_is_visible(p.oid)) ELSE to_regclass(o.name) IS NULL END"
                + " ORDER BY o.position")) {
            statement.setArray(1, connection.createArrayOf("text", names.toArray()));
            statement.setArray(2, connection.createArrayOf("text", kinds.toArray()));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    missing.add(rows.getString(1));
                }
            }
        }
        return missing;
    }

    /** The tables of {@code names} that the connection's current schema (database) lacks. */
    private List<String> missingTables(Connection connection, List<String> names, List<String> kinds)
            throws SQLException {
        java.util.Set<String> present = new java.util.HashSet<>();
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                        + (dialect == Dialect.H2 ? "SCHEMA()" : "DATABASE()"))) {
            while (rows.next()) {
                present.add(rows.getString(1).toLowerCase(java.util.Locale.ROOT));
            }
        }
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (!present.contains(names.get(i).toLowerCase(java.util.Locale.ROOT))) {
                missing.add(kinds.get(i) + " " + names.get(i));
            }
        }
        return missing;
    }
}
