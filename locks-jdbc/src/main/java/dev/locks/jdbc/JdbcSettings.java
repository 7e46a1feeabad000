package dev.locks.jdbc;

import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The settings a JDBC lock registry and a JDBC compute cache share (table prefix, kept connections, round-trip
 * timeout, schema initialisation), held by both builders and checked and applied here once.
 */
final class JdbcSettings {

    private static final System.Logger LOG = System.getLogger(JdbcSettings.class.getName());

    private final DataSource dataSource;
    private String tablePrefix = Schema.DEFAULT_PREFIX;
    private int connections = 2;
    private Duration timeout = Duration.ofSeconds(5);
    private boolean initializeSchema;
    private String dialectName;
    private Duration pollInterval = Duration.ofMillis(100);
    private Dialect dialect;

    JdbcSettings(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    DataSource dataSource() {
        return dataSource;
    }

    void tablePrefix(String tablePrefix) {
        this.tablePrefix = tablePrefix;
    }

    void connections(int connections) {
        this.connections = connections;
    }

    int connections() {
        return connections;
    }

    void timeout(Duration timeout) {
        this.timeout = timeout;
    }

    void initializeSchema(boolean initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    /** {@code null} (or blank): detected from the database. */
    void dialect(String dialect) {
        this.dialectName = dialect;
    }

    void pollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    /** The poll interval in whole milliseconds, at least 1. */
    long pollIntervalMillis() {
        return requirePositive("pollInterval", pollInterval).toMillis();
    }

    /**
     * The database's dialect: the one named, else detected (once) from the data source.
     *
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException for a database the backend does not support
     */
    Dialect dialect() {
        if (dialect == null) {
            dialect = dialectName == null || dialectName.isBlank() ? Dialect.detect(dataSource)
                    : Dialect.named(dialectName);
        }
        return dialect;
    }

    /**
     * The schema for the table prefix, after checking the prefix, the timeout and the connections.
     *
     * @throws IllegalArgumentException naming the setting that is invalid
     */
    Schema schema() {
        Schema schema = new Schema(tablePrefix, dialect());
        timeoutMillis();
        pollIntervalMillis();
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be >= 1, was " + connections);
        }
        return schema;
    }

    /** The timeout in whole milliseconds, at least 1, at most {@link Integer#MAX_VALUE}. */
    int timeoutMillis() {
        return (int) Math.min(Integer.MAX_VALUE, requirePositive("timeout", timeout).toMillis());
    }

    /**
     * Creates what is missing of the schema when asked to, and logs that it did.
     *
     * @throws IllegalStateException when it could not
     */
    void initializeIfAsked(Schema schema) {
        if (!initializeSchema) {
            return;
        }
        try {
            schema.initialize(dataSource);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the locks schema (" + schema.scriptPath()
                    + ", table prefix '" + tablePrefix + "'): " + e.getMessage(), e);
        }
        LOG.log(Level.INFO, () -> "applied " + schema.scriptPath() + " for the table prefix '" + tablePrefix
                + "' (locks.jdbc.initialize-schema): whatever of the locks schema was missing is in place");
    }

    /**
     * Unless the schema was initialised, checks that it is in place, on one of the new store's own connections
     * (one round trip), when the database answers within the timeout: it need not be up yet (then nothing is
     * checked, and calls fail as in any outage until it is).
     *
     * @param close closes the store, before the failure is thrown
     * @throws IllegalStateException when the database lacks some of the schema (or has an older one), naming what
     *         is missing, {@code locks.jdbc.initialize-schema} and the script
     */
    void checkUnlessInitialized(Schema schema, OwnConnections connections, Runnable close) {
        if (initializeSchema) {
            return;
        }
        List<String> missing;
        try {
            missing = connections.run(schema::missing);
        } catch (SQLException e) {
            LOG.log(Level.INFO, () -> "could not check the locks schema (table prefix '" + tablePrefix
                    + "') at startup, the database may not be up yet: " + e.getMessage());
            return;
        }
        if (!missing.isEmpty()) {
            close.run();
            throw new IllegalStateException("the database lacks the locks schema, or has one older than this library:"
                    + " missing " + String.join(", ", missing) + " (table prefix '" + tablePrefix + "'). Apply "
                    + schema.scriptPath() + " (in locks-jdbc, written for the prefix '" + Schema.DEFAULT_PREFIX
                    + "'), or set locks.jdbc.initialize-schema=always (JdbcLockRegistry.Builder.initializeSchema(true))"
                    + " to have it applied at startup");
        }
    }

    static Duration requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms, was " + value);
        }
        return value;
    }
}
