package dev.locks.jdbc;

import dev.locks.LockUnavailableException;
import dev.locks.spi.RemoteLockStore;
import dev.locks.spi.StoreBusyException;
import dev.locks.support.StoreKeys;
import java.lang.System.Logger.Level;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The {@link RemoteLockStore} on PostgreSQL: one row per held key in {@code <prefix>lock}, written and read
 * only by the functions of the shipped schema ({@value Schema#SCRIPT}), on the registry's own connections
 * ({@link OwnConnections}), each call one statement in a transaction of its own.
 *
 * <p>Round trips: {@link #tryAcquire}, {@link #release}, {@link #renew}, {@link #get}, {@link #forceRelease}
 * and {@link #purge} are one statement each, whatever the number of keys; {@link #scan} one per batch. Times
 * come from the database's clock. Every method throws {@link LockUnavailableException}, naming what failed,
 * when the database cannot be reached or does not answer within the timeout.
 */
final class JdbcLockStore implements JdbcStore {

    private static final System.Logger LOG = System.getLogger(JdbcLockStore.class.getName());

    private final DataSource dataSource;
    private final Schema schema;
    private final OwnConnections connections;
    private final boolean notify;
    private final int timeoutMillis;
    private final InfiniteLeases infinite;
    private final String keyPrefix;
    private final String acquireSql;
    private final String acquireSharedSql;
    private final String releaseSharedSql;
    private final String renewSharedSql;
    private final String releaseSql;
    private final String releaseHeldSql;
    private final String renewSql;
    private final String enqueueSql;
    private final String refreshSql;
    private final String dequeueSql;
    private final String scanSql;
    private final String getSql;
    private NodeListener.Subscription listener;

    /** @param keyPrefix the start of every key as stored ({@code ""} for none): a namespace within the table */
    JdbcLockStore(DataSource dataSource, Schema schema, String keyPrefix, int connectionCount, int timeoutMillis,
            boolean notify, long leaseMillis) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
        this.schema = schema;
        this.notify = notify;
        this.timeoutMillis = timeoutMillis;
        this.connections = new OwnConnections(dataSource, connectionCount, timeoutMillis);
        this.infinite = new InfiniteLeases(leaseMillis, this::renew);
        this.acquireSql = "SELECT " + schema.function("acquire") + "(?, ?, ?, ?, ?, ?, ?, ?)";
        this.releaseSql = "SELECT " + schema.function("release") + "(?, ?)";
        this.acquireSharedSql = "SELECT " + schema.function("acquire_shared") + "(?, ?, ?, ?, ?, ?, ?, ?, ?)";
        this.releaseSharedSql = "SELECT " + schema.function("release_shared") + "(?, ?)";
        this.renewSharedSql = "SELECT " + schema.function("renew_shared") + "(?, ?, ?)";
        this.releaseHeldSql = "SELECT " + schema.function("release_held") + "(?, ?, ?)";
        this.renewSql = "SELECT " + schema.function("renew") + "(?, ?, ?)";
        this.enqueueSql = "SELECT " + schema.function("enqueue") + "(?, ?, ?, ?)";
        String waiters = schema.prefix() + "waiter";
        this.refreshSql = "UPDATE " + waiters + " w SET expires_at = clock_timestamp() + ? * interval '1 millisecond'"
                + " WHERE (w.lock_key, w.ticket_id) IN (SELECT q.lock_key, q.ticket_id FROM " + waiters + " q"
                + " JOIN unnest(" + schema.function("keys") + "(?), ?) AS t(k, id) ON q.lock_key = t.k"
                + " AND q.ticket_id = t.id ORDER BY q.lock_key, q.ticket_id FOR UPDATE OF q)";
        this.dequeueSql = "SELECT " + schema.function("dequeue") + "(?, ?)";
        // the key as given (full_key, when lock_key holds its digest), then lock_key: where a scan goes on
        // a key held shared or by permits (its group row's owner id starts with '~') shows each live holder instead
        String columns = "SELECT coalesce(l.full_key, l.lock_key), coalesce(h.owner_id, l.owner_id),"
                + " coalesce(h.owner_desc, l.owner_desc), coalesce(h.token, l.token),"
                + " coalesce(h.acquired_at, l.acquired_at), coalesce(h.expires_at, l.expires_at),"
                + " coalesce(h.infinite, l.infinite), l.lock_key FROM (SELECT * FROM " + schema.table();
        String holders = ") l LEFT JOIN " + schema.prefix() + "holder h ON left(l.owner_id, 1) = '~'"
                + " AND h.lock_key = l.lock_key AND h.token > 0 AND h.expires_at > clock_timestamp()"
                + " WHERE left(l.owner_id, 1) <> '~' OR h.owner_id IS NOT NULL ORDER BY l.lock_key, h.token";
        String upper = upperBound(StoredText.encode(keyPrefix));
        this.scanSql = columns + " WHERE lock_key > ?" + (upper == null ? "" : " AND lock_key < ?")
                + " AND expires_at > clock_timestamp() ORDER BY lock_key LIMIT ?" + holders;
        this.getSql = columns + " WHERE lock_key = " + schema.function("key") + "(?) AND expires_at > clock_timestamp()"
                + holders;
        connections.prewarm();
    }

    @Override
    public OwnConnections connections() {
        return connections;
    }

    @Override
    public InfiniteLeases infiniteLeases() {
        return infinite;
    }

    /** How many times the listener began listening (tests); 0 without one. */
    @Override
    public synchronized int listenerConfirmations() {
        return listener == null ? 0 : listener.confirmations();
    }

    /**
     * One statement: the keys are taken, or the ticket (if any) waits its turn in their queues (SPEC 3); sent once a
     * connection is free within {@code waitNanos}, else nothing is sent ({@link StoreBusyException}).
     */
    @Override
    public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket, long waitNanos) {
        JdbcStore.requireAcquirable(keys, leaseMillis);
        boolean forever = leaseMillis == 0;
        Object[] result;
        try {
            result = connections.run(connection -> {
                try (PreparedStatement statement = connection.prepareStatement(acquireSql)) {
                    statement.setArray(1, texts(connection, stored(keys)));
                    statement.setString(2, owner.id());
                    statement.setString(3, StoredText.encode(owner.description()));
                    statement.setLong(4, forever ? infinite.leaseMillis() : leaseMillis);
                    statement.setBoolean(5, forever);
                    statement.setString(6, ticket == null ? "" : ticket.id());
                    statement.setLong(7, ticket == null ? 0 : ticket.order());
                    statement.setLong(8, ticket == null ? 0 : ticket.leaseMillis());
                    return (Object[]) single(statement).getArray(1).getArray();
                }
            }, waitNanos);
        } catch (OwnConnections.Busy e) {
            throw busy("acquire " + keys, e);
        } catch (SQLException e) {
            throw undone(keys, owner, unavailable("acquire " + keys, e), releaseSql);
        }
        long first = ((Number) result[0]).longValue();
        if (first > 0) {
            if (forever) {
                infinite.keep(keys, owner.id());
            }
            return Attempt.taken(first);
        }
        return Attempt.heldBy(keys.get((int) -first - 1), ((Number) result[1]).longValue());
    }

    @Override
    public boolean holdsShared() {
        return true;
    }

    /** Every ticket counts in {@code locks_queued_ahead}, this node's own too. */
    @Override
    public boolean queuesOwnWaiters() {
        return true;
    }

    /**
     * One statement ({@code acquire_shared}): each key's group row in the lock table keeps exclusive acquirers out,
     * and each holder is a row of the holders' table with its own owner, token and expiry. A lease of infinite lock
     * timeout is held under the store's lease, which the engine renews ({@link #renewShared}).
     */
    @Override
    public Attempt tryAcquireShared(List<String> keys, Owner owner, long leaseMillis, int permits, Ticket ticket,
            long waitNanos) {
        StoreKeys.requireSharedAcquire(keys, permits);
        Object[] result;
        try {
            result = connections.run(connection -> {
                try (PreparedStatement statement = connection.prepareStatement(acquireSharedSql)) {
                    statement.setArray(1, texts(connection, stored(keys)));
                    statement.setString(2, owner.id());
                    statement.setString(3, StoredText.encode(owner.description()));
                    statement.setLong(4, leaseMillis == 0 ? infinite.leaseMillis() : leaseMillis);
                    statement.setBoolean(5, leaseMillis == 0);
                    statement.setString(6, ticket == null ? "" : ticket.id());
                    statement.setLong(7, ticket == null ? 0 : ticket.order());
                    statement.setLong(8, ticket == null ? 0 : ticket.leaseMillis());
                    statement.setInt(9, permits);
                    return (Object[]) single(statement).getArray(1).getArray();
                }
            }, waitNanos);
        } catch (OwnConnections.Busy e) {
            throw busy("acquire " + keys, e);
        } catch (SQLException e) {
            throw undone(keys, owner, unavailable("acquire " + keys, e), releaseSharedSql);
        }
        long first = ((Number) result[0]).longValue();
        if (first > 0) {
            return Attempt.taken(first);
        }
        String heldKey = keys.get((int) -first - 1);
        return result.length > 2 ? Attempt.mismatch(heldKey, ((Number) result[2]).intValue())
                : Attempt.heldBy(heldKey, ((Number) result[1]).longValue());
    }

    @Override
    public Set<String> releaseShared(List<Ownership> keys) {
        return keys.isEmpty() ? Set.of() : ownerCall("release", releaseSharedSql, keys, false);
    }

    @Override
    public Set<String> renewShared(List<Ownership> keys) {
        return keys.isEmpty() ? Set.of() : ownerCall("renew", renewSharedSql, keys, true);
    }

    /**
     * One call of a function over keys and their owners (and, with {@code leases}, their leases: an infinite lock
     * timeout's is the store's): the keys at the positions it returns.
     */
    private Set<String> ownerCall(String what, String sql, List<Ownership> keys, boolean leases) {
        return keysAt(keys, call(() -> what + " " + keysOf(keys), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setArray(1, texts(connection, stored(keysOf(keys))));
                statement.setArray(2, texts(connection, keys.stream().map(Ownership::ownerId).toList()));
                if (leases) {
                    Long[] millis = keys.stream().map(k -> k.leaseMillis() > 0 ? k.leaseMillis()
                            : infinite.leaseMillis()).toArray(Long[]::new);
                    statement.setArray(3, connection.createArrayOf("bigint", millis));
                }
                return (Object[]) single(statement).getArray(1).getArray();
            }
        }));
    }

    @Override
    public long enqueue(List<String> keys, Ticket ticket, long waitNanos) {
        return call(() -> "queue a waiter for " + keys, waitNanos, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(enqueueSql)) {
                statement.setArray(1, texts(connection, stored(keys)));
                statement.setString(2, ticket.id());
                statement.setLong(3, ticket.order());
                statement.setLong(4, ticket.leaseMillis());
                return single(statement).getLong(1);
            }
        });
    }

    @Override
    public boolean refreshesTickets() {
        return true;
    }

    /**
     * One {@code UPDATE} of the ticket rows still there (never an insert), which it locks in key order first, as
     * every function does: a waiter's acquire taking its own ticket out meanwhile waits for it, never deadlocks.
     */
    @Override
    public void refreshTickets(List<Queued> tickets, long leaseMillis) {
        List<String> keys = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (Queued queued : tickets) {
            for (String key : queued.keys()) {
                keys.add(stored(key));
                ids.add(queued.ticketId());
            }
        }
        if (keys.isEmpty()) {
            return;
        }
        call(() -> "refresh " + tickets.size() + " waiters' tickets", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(refreshSql)) {
                statement.setLong(1, leaseMillis);
                statement.setArray(2, texts(connection, keys));
                statement.setArray(3, texts(connection, ids));
                return statement.executeUpdate();
            }
        });
    }

    @Override
    public void dequeue(List<String> keys, String ticketId, long waitNanos) {
        call(() -> "take a waiter for " + keys + " out of the queues", waitNanos, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(dequeueSql)) {
                statement.setArray(1, texts(connection, stored(keys)));
                statement.setString(2, ticketId);
                return single(statement).getInt(1);
            }
        });
    }

    /**
     * A call whose outcome is unknown (sent, never answered: the server was slow or paused, not gone) may still
     * run in the database, and take the keys for an owner that has given up: once the server surely ran or dropped
     * it, release them for that owner, which deletes nothing else since owner ids are unique ({@link
     * OwnConnections#afterAbandoned}: in the background, until it gets through). Nothing to undo when the database
     * answered (the call rolled back) or never got the call.
     */
    private LockUnavailableException undone(List<String> keys, Owner owner, LockUnavailableException failure,
            String releaseSql) {
        List<String> stored = stored(keys);
        List<String> owners = java.util.Collections.nCopies(keys.size(), owner.id());
        connections.afterAbandoned(failure, "release " + keys, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(releaseSql)) {
                statement.setArray(1, texts(connection, stored));
                statement.setArray(2, texts(connection, owners));
                return single(statement).getArray(1);
            }
        });
        return failure;
    }

    @Override
    public Set<String> release(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        infinite.forget(keys);
        return ownerCall("release", releaseSql, keys, false);
    }

    @Override
    public boolean holdsAtLeast() {
        return true;
    }

    /**
     * One call of {@code release_held}: a key closed before its hold-at-least time is held over in its row (owner
     * id marked, {@code expires_at} at its {@code acquired_at} plus the hold, the database's time).
     */
    @Override
    public Held releaseHeld(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return new Held(Set.of(), Map.of());
        }
        infinite.forget(keys);
        Object[] pairs = call(() -> "release " + keysOf(keys), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(releaseHeldSql)) {
                statement.setArray(1, texts(connection, stored(keysOf(keys))));
                statement.setArray(2, texts(connection, keys.stream().map(Ownership::ownerId).toList()));
                Long[] holds = keys.stream().map(Ownership::holdMillis).toArray(Long[]::new);
                statement.setArray(3, connection.createArrayOf("bigint", holds));
                return (Object[]) single(statement).getArray(1).getArray();
            }
        });
        return Held.ofPairs(keys, Arrays.stream(pairs).map(Number.class::cast).toList());
    }

    @Override
    public Set<String> renew(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        return keysAt(keys, call(() -> "renew " + keys.size() + " locks", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(renewSql)) {
                statement.setArray(1, texts(connection, stored(keysOf(keys))));
                statement.setArray(2, texts(connection, keys.stream().map(Ownership::ownerId).toList()));
                Long[] leases = keys.stream().map(k -> Math.max(1, k.leaseMillis())).toArray(Long[]::new);
                statement.setArray(3, connection.createArrayOf("bigint", leases));
                return (Object[]) single(statement).getArray(1).getArray();
            }
        }));
    }

    /** As {@link #scan(int)}, but reads no more than {@code limit} rows: each batch asks for at most what is left. */
    @Override
    public List<RemoteLock> scan(int batchSize, int limit) {
        JdbcStore.requireBatchSize(batchSize);
        List<RemoteLock> locks = new ArrayList<>();
        String upper = upperBound(StoredText.encode(keyPrefix));
        String[] after = {StoredText.encode(keyPrefix)}; // keys are never empty: every stored key is greater
        while (locks.size() < limit) {
            String from = after[0];
            int size = Math.min(batchSize, limit - locks.size());
            List<RemoteLock> batch = call(() -> "list the locks in " + schema.table(), connection -> {
                try (PreparedStatement statement = connection.prepareStatement(scanSql)) {
                    int parameter = 1;
                    statement.setString(parameter++, from);
                    if (upper != null) {
                        statement.setString(parameter++, upper);
                    }
                    statement.setInt(parameter, size);
                    return locks(statement, after);
                }
            });
            locks.addAll(batch);
            if (batch.size() < size) { // a batch reads up to size keys: one row each, or one per holder
                break;
            }
        }
        return locks.size() > limit ? List.copyOf(locks.subList(0, limit)) : locks;
    }

    @Override
    public RemoteLock get(String key) {
        StoreKeys.requireValid(key);
        List<RemoteLock> found = call(() -> "read the lock on '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(getSql)) {
                statement.setString(1, stored(key));
                return locks(statement, new String[1]);
            }
        });
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public boolean forceRelease(String key) {
        StoreKeys.requireValid(key);
        return call(() -> "force-release '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT " + schema.function("force_release") + "(?)")) {
                statement.setString(1, stored(key));
                return single(statement).getBoolean(1);
            }
        });
    }

    /** One round trip ({@code SELECT 1}) on one of the registry's connections (see {@link OwnConnections#ping()}). */
    @Override
    public void ping() {
        try {
            connections.ping(); // ahead of the lock traffic, shared by concurrent health checks
        } catch (SQLException e) {
            throw unavailable("reach the database", e);
        }
    }

    /** Deletes up to {@code limit} expired locks of any node (one round trip); how many. */
    @Override
    public int purge(int limit) {
        return call(() -> "remove expired locks from " + schema.table(), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT " + schema.function("purge") + "(?)")) {
                statement.setInt(1, limit);
                return single(statement).getInt(1);
            }
        });
    }

    /** Listens on this node's one connection for release notices, unless notification is off. */
    @Override
    public synchronized boolean subscribe(Consumer<String> released, Runnable missed) {
        Objects.requireNonNull(released, "released");
        Objects.requireNonNull(missed, "missed");
        if (!notify) {
            return false;
        }
        if (!NodeListener.driverPresent()) {
            LOG.log(Level.WARNING, "the PostgreSQL driver (org.postgresql:postgresql) is not on the classpath:"
                    + " lock waiters poll at their retry interval instead of listening for releases");
            return false;
        }
        if (listener != null) {
            throw new IllegalStateException("this JDBC lock store already listens (one connection per node)");
        }
        Consumer<String> ours = stored -> {
            String key = StoredText.decode(stored);
            if (key.startsWith(keyPrefix)) { // a key of another prefix in the same table is not ours
                released.accept(key.substring(keyPrefix.length()));
            }
        };
        listener = NodeListener.listen(dataSource, timeoutMillis, schema.channel(), ours, missed,
                connections::discardIdle);
        return true;
    }

    @Override
    public synchronized void close() {
        infinite.close();
        if (listener != null) {
            listener.close();
            listener = null;
        }
        connections.close();
    }

    private <T> T call(Supplier<String> what, OwnConnections.Call<T> call) {
        return call(what, UNBOUNDED_WAIT, call);
    }

    private <T> T call(Supplier<String> what, long waitNanos, OwnConnections.Call<T> call) {
        try {
            return connections.run(call, waitNanos);
        } catch (OwnConnections.Busy e) {
            throw busy(what.get(), e);
        } catch (SQLException e) {
            throw unavailable(what.get(), e);
        }
    }

    private StoreBusyException busy(String what, OwnConnections.Busy e) {
        return new StoreBusyException("The JDBC lock store could not " + what + " in time: " + e.getMessage() + ".");
    }

    private LockUnavailableException unavailable(String what, SQLException e) {
        return new LockUnavailableException("JDBC lock store (table " + schema.table() + ") could not " + what + ": "
                + e.getMessage() + " (is the database reachable, and its schema in place? see "
                + Schema.SCRIPT + ")", e);
    }

    private static Array texts(Connection connection, List<String> values) throws SQLException {
        return connection.createArrayOf("text", values.toArray());
    }

    private static ResultSet single(PreparedStatement statement) throws SQLException {
        ResultSet result = statement.executeQuery();
        if (!result.next()) {
            throw new SQLException("no row from " + statement);
        }
        return result;
    }

    /** The keys as stored: with the key prefix, in {@link StoredText}. */
    private List<String> stored(List<String> keys) {
        return keys.stream().map(this::stored).toList();
    }

    private String stored(String key) {
        return StoredText.encode(keyPrefix + key);
    }

    /**
     * The least string greater than every string that starts with {@code prefix} (in code point order, which
     * is the byte order of the table's {@code COLLATE "C"} keys): the prefix with its last code point below
     * U+10FFFF incremented; {@code null} when there is none (the empty prefix).
     */
    static String upperBound(String prefix) {
        int[] points = prefix.codePoints().toArray();
        for (int i = points.length - 1; i >= 0; i--) {
            if (points[i] < Character.MAX_CODE_POINT) {
                int next = points[i] + 1 == Character.MIN_SURROGATE ? Character.MAX_SURROGATE + 1 : points[i] + 1;
                StringBuilder bound = new StringBuilder();
                for (int j = 0; j < i; j++) {
                    bound.appendCodePoint(points[j]);
                }
                return bound.appendCodePoint(next).toString();
            }
        }
        return null;
    }

    /** The locks {@code statement} reads; {@code last[0]} becomes the stored key of its last row. */
    private List<RemoteLock> locks(PreparedStatement statement, String[] last) throws SQLException {
        List<RemoteLock> locks = new ArrayList<>();
        try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                last[0] = rows.getString(8);
                locks.add(new RemoteLock(StoredText.decode(rows.getString(1)).substring(keyPrefix.length()),
                        rows.getString(2), StoredText.decode(rows.getString(3)), rows.getLong(4), instant(rows, 5),
                        rows.getBoolean(7) ? Instant.MAX : instant(rows, 6)));
            }
        }
        return locks;
    }

    private static Instant instant(ResultSet rows, int column) throws SQLException {
        return rows.getObject(column, OffsetDateTime.class).toInstant();
    }

    /** The keys at the 1-based positions a function returned. */
    private static Set<String> keysAt(List<Ownership> keys, Object[] indexes) {
        if (indexes.length == 0) {
            return Set.of();
        }
        Set<String> found = new LinkedHashSet<>(indexes.length * 2);
        for (Object index : indexes) {
            found.add(keys.get(((Number) index).intValue() - 1).key());
        }
        return found;
    }

    private static List<String> keysOf(List<Ownership> keys) {
        return keys.stream().map(Ownership::key).toList();
    }
}
