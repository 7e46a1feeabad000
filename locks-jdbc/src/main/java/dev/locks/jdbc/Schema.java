package dev.locks.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The names of the tables, sequence, functions and channel under one table prefix, and the shipped schema
 * script ({@value #SCRIPT}) written for that prefix.
 */
final class Schema {

    /** The schema on the classpath, written for the default prefix. */
    static final String SCRIPT = "dev/locks/jdbc/schema-postgresql.sql";

    static final String DEFAULT_PREFIX = "locks_";

    /** Lower case (so that quoted and unquoted uses agree, the channel name included), within 63 bytes. */
    private static final Pattern PREFIX = Pattern.compile("[a-z_][a-z0-9_]{0,39}");

    /** Some key of the script's; the lock any node takes while it runs the script. */
    private static final long INIT_LOCK = 0x6c6f636b735f6a64L;

    private final String prefix;

    Schema(String prefix) {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("tablePrefix must be lower-case letters, digits and '_', starting with"
                    + " a letter or '_', at most 40 characters (default \"" + DEFAULT_PREFIX + "\"), was "
                    + (prefix == null ? "null" : "'" + prefix + "'"));
        }
        this.prefix = prefix;
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
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IllegalStateException(SCRIPT + " is missing from the classpath");
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
}
