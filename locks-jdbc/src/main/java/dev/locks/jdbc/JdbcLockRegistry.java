package dev.locks.jdbc;

import dev.locks.LockUnavailableException;
import dev.locks.support.AbstractLockRegistry;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The JDBC {@link dev.locks.LockRegistry}: keyed locks shared by every node (JVM) that uses the same database,
 * table prefix and key prefix, in a table on the application's {@link DataSource}; PostgreSQL, MariaDB, MySQL or H2
 * ({@link Builder#dialect(String)}, detected by default). The points below are PostgreSQL's; on the others the
 * statements are plain ones (no stored routines: a few per call, in one transaction), leases follow the database's
 * {@code UTC_TIMESTAMP(6)} ({@code CURRENT_TIMESTAMP} on H2), and a waiter is woken at once by a release on its own
 * node and by one poll per node every {@link Builder#pollInterval(Duration) poll interval} for releases on others.
 *
 * <ul>
 *   <li>Threads of one node contend in this node's memory first, and re-entry costs no round trip; the keys a
 *       lease newly takes are taken in the database all-or-nothing in one round trip (one function call, one
 *       short transaction), and released in one round trip.</li>
 *   <li>Its statements run on connections of the registry's own ({@link Builder#connections(int)}, taken from
 *       the data source once and kept), never inside the caller's transaction, and never waiting for the
 *       application's pool: callers that hold every pooled connection in open transactions can still lock.</li>
 *   <li>Leases expire by the database's clock ({@code clock_timestamp()}), never a node's; fencing tokens come
 *       from a sequence, so they increase across all nodes.</li>
 *   <li>A waiter is woken as soon as a key it waits for is released on any node: each node listens on one
 *       connection ({@code LISTEN}/{@code NOTIFY}; {@link Builder#notify(boolean)}), with the retry interval as
 *       the fallback.</li>
 *   <li>A lock is never stored without expiry: one of infinite lock timeout is stored with a
 *       {@linkplain Builder#lease(Duration) lease} this node renews until release, so a crashed node's locks
 *       free themselves after at most that lease (or their lock timeout).</li>
 *   <li>When the database cannot be reached, {@code acquire} throws {@link dev.locks.LockUnavailableException}
 *       within the {@linkplain Builder#timeout(Duration) timeout}; when it is back, everything works again.</li>
 * </ul>
 *
 * <p>{@link #heldLocks()} lists every node's live locks, read in batches of {@link Builder#cleanupBatchSize(int)};
 * {@link #sweep()} also deletes expired rows of any node (crashed nodes leave them; they block nobody).
 * {@link #close()} stops the watchdog, releases this node's locks, stops listening and gives the connections
 * back. Thread-safe; build one per application and share it.
 */
public final class JdbcLockRegistry extends AbstractLockRegistry {

    private static final System.Logger LOG = System.getLogger(JdbcLockRegistry.class.getName());

    private final JdbcStore store;
    private final int batchSize;
    private volatile boolean closed;

    private JdbcLockRegistry(Builder builder, JdbcStore store) {
        super(builder, store);
        this.store = store;
        this.batchSize = builder.sweepBatchSize();
    }

    /** A builder on the application's data source; every other setting has a default. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * This node's stale locks (see {@link AbstractLockRegistry#sweep()}), then every node's expired rows, in
     * batches. An unreachable database ends the sweep (logged): the next one goes on.
     */
    @Override
    public int sweep() {
        int removed = super.sweep();
        if (closed) {
            return removed;
        }
        try {
            for (int purged = batchSize; purged == batchSize; ) {
                purged = store.purge(batchSize);
                removed += purged;
            }
        } catch (LockUnavailableException e) {
            LOG.log(Level.WARNING, () -> "could not remove expired locks: " + e.getMessage());
        }
        return removed;
    }

    /**
     * One round trip to the database on one of the registry's own connections, for a health check: returns
     * when the database answered.
     *
     * @throws dev.locks.LockUnavailableException when it cannot be reached within the timeout
     */
    public void ping() {
        store.ping();
    }

    /**
     * Stops the sweep and the watchdog, releases this node's locks in the database, stops listening and closes
     * the registry's connections (back to the pool); later acquires throw {@link IllegalStateException}.
     */
    @Override
    public void close() {
        closed = true;
        super.close();
    }

    JdbcStore store() {
        return store;
    }

    /**
     * Builds a {@link JdbcLockRegistry}: the settings of every registry on a store (see
     * {@link AbstractLockRegistry.StoreBuilder}; the clock times leases in this JVM, while expiry in the database
     * follows the database's clock): the key prefix, a namespace within the table (default {@code ""}: the table
     * prefix is the usual namespace); notification, by {@code NOTIFY} on release (one listening connection per
     * node); the lease of infinite locks (default 30 s, at least 1 ms). Plus the table prefix, the registry's
     * connections and its timeout.
     */
    public static final class Builder extends AbstractLockRegistry.StoreBuilder<Builder> {

        private final JdbcSettings settings;

        private Builder(DataSource dataSource) {
            super("jdbc", "");
            this.settings = new JdbcSettings(Objects.requireNonNull(dataSource, "dataSource"));
        }

        private int sweepBatchSize() {
            return batchSize();
        }

        /**
         * The start of the name of every table, sequence, function and channel; default {@code "locks_"}.
         * Lower-case letters, digits and {@code _}. Registries with different prefixes never see each other's
         * locks.
         */
        public Builder tablePrefix(String tablePrefix) {
            settings.tablePrefix(tablePrefix);
            return this;
        }

        /**
         * How many connections the registry takes from the data source and keeps for its statements (besides
         * its one listening connection); default 2. Size the application's pool for them.
         */
        public Builder connections(int connections) {
            settings.connections(connections);
            return this;
        }

        /**
         * How long one round trip may take before it counts as an outage ({@link
         * dev.locks.LockUnavailableException}); default 5 s. The database itself gives up on a statement of the
         * registry's after three quarters of it ({@code statement_timeout} and {@code lock_timeout} on its own
         * sessions), so that nothing the caller gave up on goes on there. A call that finds the registry's
         * connections busy waits its turn, and fails only when none came back within the timeout.
         */
        public Builder timeout(Duration timeout) {
            settings.timeout(timeout);
            return this;
        }

        /**
         * Whether {@link #build()} creates what is missing of the schema ({@code dev/locks/jdbc/schema-<dialect>.sql},
         * idempotent) for the table prefix, and logs that it did; default false (the schema is the application's:
         * Flyway, Liquibase, or the script run by hand; {@link #build()} then checks that it is in place).
         */
        public Builder initializeSchema(boolean initializeSchema) {
            settings.initializeSchema(initializeSchema);
            return this;
        }

        /**
         * The database's dialect: {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2}; default
         * {@code null}, detected from the connection's metadata (or, when the database cannot be reached at
         * startup, from the data source's JDBC URL). {@code locks.jdbc.dialect} under the starter.
         */
        public Builder dialect(String dialect) {
            settings.dialect(dialect);
            return this;
        }

        /**
         * On a database without notifications (all but PostgreSQL): how often this node reads which keys other
         * nodes released, one query per node (never one per waiter); default 100 ms, at least 1 ms. A release on
         * this node wakes its waiters at once. {@code locks.jdbc.poll-interval} under the starter.
         */
        public Builder pollInterval(Duration pollInterval) {
            settings.pollInterval(pollInterval);
            return this;
        }

        /**
         * Builds the registry (and the schema, when asked) and starts listening; without schema initialisation
         * the database need not be up yet.
         *
         * @throws IllegalArgumentException naming the setting that is invalid
         * @throws IllegalStateException when the schema was to be initialised and could not be, or, not asked to
         *         initialise it, the database answers within the timeout and lacks some of the schema (or has an older
         *         one): the message names what is missing, {@code locks.jdbc.initialize-schema} and the script
         */
        public JdbcLockRegistry build() {
            Schema schema = settings.schema();
            long leaseMillis = JdbcSettings.requirePositive("lease", lease()).toMillis();
            String keyPrefix = keyPrefix();
            validate(); // every shared setting checked before anything opens
            settings.initializeIfAsked(schema);
            JdbcStore store = schema.dialect() == Dialect.POSTGRESQL
                    ? new JdbcLockStore(settings.dataSource(), schema, keyPrefix, settings.connections(),
                            settings.timeoutMillis(), notifies(), leaseMillis)
                    : new StatementLockStore(settings.dataSource(), schema, keyPrefix, settings.connections(),
                            settings.timeoutMillis(), notifies() ? settings.pollIntervalMillis() : 0, leaseMillis);
            settings.checkUnlessInitialized(schema, store.connections(), store::close);
            return new JdbcLockRegistry(this, store);
        }
    }
}
