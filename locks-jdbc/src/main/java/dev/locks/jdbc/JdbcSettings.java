package dev.locks.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The settings a JDBC lock registry and a JDBC compute cache share (table prefix, kept connections, round-trip
 * timeout, schema initialisation), held by both builders and checked and applied here once.
 */
final class JdbcSettings {

    private final DataSource dataSource;
    private String tablePrefix = Schema.DEFAULT_PREFIX;
    private int connections = 2;
    private Duration timeout = Duration.ofSeconds(5);
    private boolean initializeSchema;

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

    /**
     * The schema for the table prefix, after checking the prefix, the timeout and the connections.
     *
     * @throws IllegalArgumentException naming the setting that is invalid
     */
    Schema schema() {
        Schema schema = new Schema(tablePrefix);
        timeoutMillis();
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
     * Creates what is missing of the schema when asked to.
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
            throw new IllegalStateException("could not create the locks schema (" + Schema.SCRIPT
                    + ", table prefix '" + tablePrefix + "'): " + e.getMessage(), e);
        }
    }

    static Duration requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms, was " + value);
        }
        return value;
    }
}
