package dev.locks.jdbc;

import dev.locks.ComputeCache;
import dev.locks.ComputeFailedException;
import dev.locks.LockUnavailableException;
import dev.locks.spi.JdkValueSerializer;
import dev.locks.spi.ValueSerializer;
import dev.locks.support.RemoteComputeCache;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The JDBC {@link ComputeCache}: values shared by every node (JVM) that uses the same database, table prefix and
 * key prefix, each miss computed by one caller across all of them, in two tables on the application's
 * {@link DataSource}. The protocol is the core's ({@link RemoteComputeCache}, the same as on Redis); this class
 * chooses the store by the database's dialect ({@link Builder#dialect}): the list below is PostgreSQL's (functions
 * and {@code NOTIFY}). On MariaDB, MySQL and H2 (no stored routines, no notifications) each step is a short
 * transaction of plain statements that locks the key's record row first, and the end of a miss is written to a
 * third table, {@code <prefix>compute_notice}, which each node reads once per
 * {@linkplain Builder#noticePollInterval poll interval} on one thread (callers on the computer's own node get the
 * value at once, those on other nodes within about that interval); see {@code StatementComputeStore}.
 *
 * <ul>
 *   <li>A hit is one {@code SELECT} and a deserialization. On a miss, the callers of a key on one node meet in
 *       the node's memory first; one of them claims the miss for all of them in one function call
 *       ({@code <prefix>compute_claim}): it finds the value after all, or it computes, or another node's
 *       computer does and it waits. A computed value is stored with its TTL ({@link Duration#ZERO}: no expiry)
 *       in the same transaction that settles the miss and sends one {@code NOTIFY}; each node wakes its waiters
 *       from its one listening connection, which it shares with the {@link JdbcLockRegistry} on the same data
 *       source. A {@code null} result is handed to every waiter and stored nowhere.</li>
 *   <li>The calls of one key run one after the other in the database (each function takes the key's
 *       transaction-scoped advisory lock), in short transactions of their own on connections of the cache's own
 *       ({@link Builder#connections(int)}, taken from the data source once and kept): never inside the caller's
 *       transaction, never waiting for the application's pool.</li>
 *   <li>TTLs and compute locks expire by the database's clock ({@code clock_timestamp()}), never a node's. A
 *       computer that overruns its compute timeout is replaced by a waiter (the oldest on its node, first to
 *       claim across nodes), which computes in its turn with the first computer's hint; the first successful
 *       completion of the miss is stored, later ones change nothing.</li>
 *   <li>{@link #invalidate} deletes the value and sets the miss in flight aside in one call: its result still
 *       answers its own callers and waiters but is not stored, and every later caller, on any node, starts a new
 *       computation.</li>
 *   <li>A failure reaches the waiters on the computer's node as the exception object itself, those on other
 *       nodes as a {@link ComputeFailedException} with the exception's class name and message (a message over
 *       about 7 KB, which a {@code NOTIFY} cannot carry, reaches them cut short).</li>
 *   <li>When the database cannot be reached, calls throw {@link LockUnavailableException} within the
 *       {@linkplain Builder#timeout(Duration) timeout}; when it is back, everything works again.</li>
 * </ul>
 *
 * <p>Round trips on PostgreSQL: a hit 1; the computer of a miss 3 (the look-up, the claim, the completion or
 * failure); every other caller on the computer's node 1; on each other node, its first caller 2 plus one
 * {@code SELECT} for the node when the value lands. Expired rows are removed a couple at a time by the calls that add
 * rows, so the tables need no sweeper. Elsewhere a hit is 1 too, a claim and a completion each a transaction of 3 to 6
 * statements, and the node's poller removes old rows about once a minute.
 *
 * <p>Values go through a {@link ValueSerializer} ({@link Builder#serializer}); the default is JDK serialization
 * with an allow-list ({@link JdkValueSerializer}). A stored value that cannot be read (corrupt, a class renamed or
 * refused) is a miss: removed, computed again, logged at {@code WARN} once a minute per key and counted; it never
 * fails the call.
 *
 * <p>{@link #computations()} shows this node's computations; {@link #close()} stops listening and gives the
 * cache's connections back. Thread-safe; build one per application and share it.
 */
public final class JdbcComputeCache extends RemoteComputeCache {

    private final SqlComputeStore store;

    private JdbcComputeCache(Builder builder, SqlComputeStore store, ValueSerializer serializer) {
        super(builder, store, serializer);
        this.store = store;
    }

    /** A builder on the application's data source; every other setting has a default. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Stops listening (the node's listening connection closes with its last user) and closes the cache's
     * connections (back to the pool); later calls throw {@link IllegalStateException}.
     */
    @Override
    public void close() {
        super.close();
    }

    /** Whether a caller of {@code key} on this node would now join a computation in flight (tests). */
    @Override
    protected boolean joinsComputationOf(String key) {
        return super.joinsComputationOf(key);
    }

    SqlComputeStore store() {
        return store;
    }

    /**
     * Builds a {@link JdbcComputeCache}: the settings of every distributed cache (see
     * {@link RemoteComputeCache.Builder}; the clock times compute timeouts and waits in this JVM, while TTLs and
     * compute locks in the database follow the database's clock), plus the table prefix, the key prefix, the
     * serializer, the cache's connections and its timeout.
     */
    public static final class Builder extends RemoteComputeCache.Builder<Builder> {

        private final JdbcSettings settings;
        private String keyPrefix = "";
        private ValueSerializer serializer;

        private Builder(DataSource dataSource) {
            super("jdbc");
            this.settings = new JdbcSettings(requireSetting(dataSource, "dataSource"));
        }

        /**
         * The start of the name of every table, function and channel; default {@code "locks_"}, as for
         * {@link JdbcLockRegistry.Builder#tablePrefix}. Lower-case letters, digits and {@code _}.
         */
        public Builder tablePrefix(String tablePrefix) {
            settings.tablePrefix(tablePrefix);
            return this;
        }

        /**
         * The start of every key as stored, a namespace within the tables; default {@code ""}. Keys the API shows
         * never carry it.
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = requireSetting(keyPrefix, "keyPrefix");
            return this;
        }

        /**
         * How values are written to the database ({@code bytea}) and read back; default a
         * {@link JdkValueSerializer} of the JDK's value types only ({@link JdkValueSerializer#JDK_TYPES}), with the
         * thread's context class loader: give one that allows the application's classes too. A value the
         * serializer cannot read is a miss (removed, computed again, logged). Every node of a cache must use the
         * same.
         */
        public Builder serializer(ValueSerializer serializer) {
            this.serializer = requireSetting(serializer, "serializer");
            return this;
        }

        /**
         * How many connections the cache takes from the data source and keeps for its statements (besides the
         * node's one listening connection on PostgreSQL, shared with the lock registries on the same data source;
         * elsewhere the node's poll of notices runs on one of these); default 2.
         * Size the application's pool for them.
         */
        public Builder connections(int connections) {
            settings.connections(connections);
            return this;
        }

        /**
         * How long one round trip may take before it counts as an outage ({@link LockUnavailableException});
         * default 5 s. The database itself gives up on a statement of the cache's after three quarters of it
         * ({@code statement_timeout} and {@code lock_timeout} on its own sessions). A call that finds the cache's
         * connections busy waits its turn, and fails only when none came back within the timeout.
         */
        public Builder timeout(Duration timeout) {
            settings.timeout(timeout);
            return this;
        }

        /**
         * Whether {@link #build()} creates what is missing of the schema ({@value Schema#SCRIPT}, idempotent, the
         * same script as the lock registry's) for the table prefix, and logs that it did; default false
         * ({@link #build()} then checks that the schema is in place).
         */
        public Builder initializeSchema(boolean initializeSchema) {
            settings.initializeSchema(initializeSchema);
            return this;
        }

        /**
         * The database's dialect, as {@link JdbcLockRegistry.Builder#dialect(String)}: detected by default.
         */
        public Builder dialect(String dialect) {
            settings.dialect(dialect);
            return this;
        }

        /**
         * On a database without notifications (all but PostgreSQL): how often this node reads the ends of misses
         * and the invalidations of other nodes, one query per node (never one per waiter or key); default 100 ms, at
         * least 1 ms. Callers on the computer's own node get its value at once. {@code locks.jdbc.poll-interval}
         * under the starter (the same as {@link JdbcLockRegistry.Builder#pollInterval(Duration)}).
         */
        public Builder noticePollInterval(Duration pollInterval) {
            settings.pollInterval(pollInterval);
            return this;
        }

        /** How often a waiter looks at the database by itself, should a notice be lost; for tests. */
        @Override
        protected Builder pollInterval(Duration pollInterval) {
            return super.pollInterval(pollInterval);
        }

        /**
         * Builds the cache (and the schema, when asked) and starts listening; without schema initialisation the
         * database need not be up yet.
         *
         * @throws IllegalArgumentException naming the setting that is invalid
         * @throws IllegalStateException when the schema was to be initialised and could not be, or, not asked to
         *         initialise it, the database answers within the timeout and lacks some of the schema (or has an older
         *         one): the message names what is missing, {@code locks.jdbc.initialize-schema} and the script
         */
        public JdbcComputeCache build() {
            Schema schema = settings.schema();
            settings.initializeIfAsked(schema);
            ValueSerializer values = serializer != null ? serializer
                    : JdkValueSerializer.withJdkTypes(Thread.currentThread().getContextClassLoader(), List.of(),
                            "locks.jdbc.serialization.allowed-classes");
            SqlComputeStore store = schema.dialect().notifies()
                    ? new JdbcComputeStore(settings.dataSource(), schema, keyPrefix, settings.connections(),
                            settings.timeoutMillis())
                    : new StatementComputeStore(settings.dataSource(), schema, keyPrefix,
                            settings.connections(), settings.timeoutMillis(),
                            Duration.ofMillis(settings.pollIntervalMillis()));
            settings.checkUnlessInitialized(schema, store.connections(), store::close);
            return new JdbcComputeCache(this, store, values);
        }
    }
}
