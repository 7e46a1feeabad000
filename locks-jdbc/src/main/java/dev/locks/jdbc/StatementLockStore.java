package dev.locks.jdbc;

import dev.locks.LockUnavailableException;
import dev.locks.spi.StoreBusyException;
import dev.locks.support.StoreKeys;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The {@link dev.locks.spi.RemoteLockStore} on MariaDB, MySQL and H2: plain statements (no stored routines), each
 * call one short transaction on the registry's own connections ({@link OwnConnections}). A key's row in
 * {@code <prefix>lock} stays after its release (free: {@code owner_id ''}, {@code released_at} set), so that other
 * nodes learn of the release by reading {@code released_at}: one query per node every poll interval
 * ({@link ReleasePoller}), never one per waiter; a release on this node wakes its waiters at once.
 *
 * <p>How the statements stay clear of each other: every call locks the rows of its keys in one order, their stored
 * bytes ascending ({@code INSERT ... ON DUPLICATE KEY UPDATE} of all of them in that order on MariaDB and MySQL,
 * which creates a missing row and locks an existing one; {@code MERGE} of the missing ones, then {@code SELECT ...
 * FOR UPDATE} in key order on H2), before it touches anything else; the fencing counter row is taken last, by the
 * only calls that take keys. Two calls then never wait for each other in a circle, but for the rare insert of a key
 * two calls both found missing: a deadlock victim, a lock-wait timeout, a duplicate key or a serialization failure
 * is rolled back and the call runs again within its timeout (logged at DEBUG), never reaching the caller.
 *
 * <p>Times are the database's ({@code UTC_TIMESTAMP(6)}, H2's {@code CURRENT_TIMESTAMP} in UTC), read once per call
 * once its rows are locked; leases, expiry and tickets are decided on it, never on a node's clock. Fencing tokens come
 * from the counter row {@code fencing}, drawn after the keys' rows are locked, and never below the database's clock in
 * microseconds (as on PostgreSQL).
 *
 * <p>Fairness (SPEC 3) as on PostgreSQL: the tickets of waiting acquires in {@code <prefix>waiter}, the oldest live
 * ticket first, whichever node it is of.
 *
 * <p>Shared and counted holds (SPEC 13) as on PostgreSQL: a key's row is its group row ({@code ~shared} or
 * {@code ~permits:<n>}), each holder a row of {@code <prefix>holder}, read and written only with the group row
 * locked (the force release and the sweep aside, whose conflicts are retried like any other).
 */
final class StatementLockStore implements JdbcStore {

    private static final System.Logger LOG = System.getLogger(StatementLockStore.class.getName());
    /** Longer keys are stored as a digest, as on PostgreSQL (the whole key in {@code full_key}). */
    private static final int MAX_STORED_BYTES = 1000;
    /** How long a free row stays for the pollers before the sweep deletes it. */
    private static final long FREE_ROW_MILLIS = 60_000;
    private static final String HELD_SUFFIX = "~held";

    private final Dialect dialect;
    private final Schema schema;
    private final OwnConnections connections;
    private final InfiniteLeases infinite;
    private final String keyPrefix;
    private final int timeoutMillis;
    private final long pollMillis;
    private final String table;
    private final String waiters;
    private final String counters;
    private final String holders;
    private final String now;
    private volatile Consumer<String> released;
    /**
     * The keys the current call freed, told to this node's waiters once the call gave its connection back: a waiter
     * woken on the releasing thread may make a call at once, which must not wait for the connection its waker holds.
     */
    private final ThreadLocal<List<String>> freedHere = ThreadLocal.withInitial(ArrayList::new);
    private ReleasePoller poller;

    /**
     * @param pollMillis how often to read the releases of other nodes; 0 for never (notification off: waiters poll
     *        at their retry interval)
     */
    StatementLockStore(DataSource dataSource, Schema schema, String keyPrefix, int connectionCount, int timeoutMillis,
            long pollMillis, long leaseMillis) {
        this.schema = schema;
        this.dialect = schema.dialect();
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
        this.timeoutMillis = timeoutMillis;
        this.pollMillis = pollMillis;
        this.connections = new OwnConnections(dataSource, dialect, connectionCount, timeoutMillis);
        this.infinite = new InfiniteLeases(leaseMillis, this::renew);
        this.table = schema.table();
        this.waiters = schema.prefix() + "waiter";
        this.counters = schema.prefix() + "counter";
        this.holders = schema.prefix() + "holder";
        this.now = dialect == Dialect.H2 ? "CAST(CURRENT_TIMESTAMP(6) AT TIME ZONE 'UTC' AS TIMESTAMP(6))"
                : "UTC_TIMESTAMP(6)";
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

    @Override
    public synchronized int listenerConfirmations() {
        return poller == null ? 0 : poller.confirmations();
    }

    // ---- keys as stored

    /** A key as stored: the UTF-8 bytes of the prefixed, escaped key, or of its digest when longer. */
    private Stored stored(String key) {
        String text = StoredText.encode(keyPrefix + key);
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_STORED_BYTES) {
            return new Stored(key, bytes, null);
        }
        String digest = text.substring(0, text.offsetByCodePoints(0, 200)) + StoredText.ESCAPE + "h"
                + HexFormat.of().formatHex(sha256(bytes));
        return new Stored(key, digest.getBytes(StandardCharsets.UTF_8), text);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A key as given, as stored ({@code bytes}), and the whole stored text when {@code bytes} is its digest. */
    private record Stored(String key, byte[] bytes, String full) {

        String id() {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
    }

    /** The keys as stored, in the order rows are locked: their bytes ascending. */
    private List<Stored> lockOrder(List<String> keys) {
        List<Stored> stored = new ArrayList<>(keys.size());
        for (String key : keys) {
            stored.add(stored(key));
        }
        stored.sort((a, b) -> Arrays.compareUnsigned(a.bytes(), b.bytes()));
        return stored;
    }

    /** The key as given of a row, or null for a row of another key prefix. */
    private String keyOf(byte[] lockKey, String fullKey) {
        String text = StoredText.decode(fullKey != null ? fullKey : new String(lockKey, StandardCharsets.UTF_8));
        return text.startsWith(keyPrefix) ? text.substring(keyPrefix.length()) : null;
    }

    private static String marks(int count) {
        return marks(count, "?");
    }

    /** {@code count} times {@code mark}, comma-separated: the placeholders of an {@code IN} list. */
    private static String marks(int count, String mark) {
        return String.join(", ", java.util.Collections.nCopies(count, mark));
    }

    private static int setKeys(PreparedStatement statement, int from, List<Stored> keys) throws SQLException {
        int parameter = from;
        for (Stored key : keys) {
            statement.setBytes(parameter++, key.bytes());
        }
        return parameter;
    }

    /**
     * Binds a time of the database's (UTC, microseconds). As text on MariaDB and MySQL: MySQL Connector/J on MariaDB
     * (which it takes for MySQL 5.5) drops the fraction of a bound {@code LocalDateTime}.
     */
    private void setTime(PreparedStatement statement, int parameter, LocalDateTime time) throws SQLException {
        if (dialect.mysqlFamily()) {
            statement.setString(parameter, DATETIME.format(time));
        } else {
            statement.setObject(parameter, time);
        }
    }

    private static final java.time.format.DateTimeFormatter DATETIME =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

    private static LocalDateTime time(ResultSet rows, int column) throws SQLException {
        return rows.getObject(column, LocalDateTime.class);
    }

    private static Instant instant(LocalDateTime time) {
        return time.toInstant(ZoneOffset.UTC);
    }

    private static long micros(LocalDateTime time) {
        Instant instant = instant(time);
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }

    private String limit(int count) {
        return dialect == Dialect.H2 ? " FETCH FIRST " + count + " ROWS ONLY" : " LIMIT " + count;
    }

    /** The database's time now (in the call's transaction). */
    private LocalDateTime now(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT " + now);
                ResultSet row = statement.executeQuery()) {
            row.next();
            return time(row, 1);
        }
    }

    // ---- the rows of a call's keys

    /** A key's row as locked by a call. */
    private record Row(String ownerId, LocalDateTime acquiredAt, LocalDateTime expiresAt, boolean queued) {
    }

    /**
     * Who asks, for the rows' {@link Row#queued} flags: whether a live ticket other than {@code ticketId} (empty for a
     * caller without one), older than {@code order} (any, when 0), waits for the key. Every node's tickets count, the
     * asker's node's own too, as on Redis: a node's threads contend for a key in its memory without an order of their
     * own, and a queue that left them out let a node's one-key callers starve its three-key waiter (issue 24).
     */
    private record Asker(String ticketId, long order) {

        static Asker of(Ticket ticket) {
            return ticket == null ? new Asker("", 0) : new Asker(ticket.id(), ticket.order());
        }
    }

    /**
     * Locks the rows of {@code keys} in key order, creating those that are missing (free: a key's row stays once
     * created, so this is its first use, or its first since the sweep deleted it); returns them by {@link
     * Stored#id()} and the database's time (read once they are locked).
     */
    private Map<String, Row> lockRows(Connection connection, List<Stored> keys, LocalDateTime[] time, Asker asker)
            throws SQLException {
        Map<String, Row> rows = readRows(connection, keys, time, asker);
        if (rows.size() == keys.size()) {
            return rows;
        }
        insertRows(connection, keys.stream().filter(key -> !rows.containsKey(key.id())).toList());
        return readRows(connection, keys, time, asker);
    }

    /** Inserts free rows for {@code keys}, in key order, any of them inserted meanwhile left as it is. */
    private void insertRows(Connection connection, List<Stored> keys) throws SQLException {
        String never = "TIMESTAMP '1970-01-01 00:00:00'";
        StringBuilder sql = new StringBuilder(dialect == Dialect.H2 ? "MERGE INTO " + table + " t USING (VALUES "
                : "INSERT INTO " + table + " (lock_key, full_key, owner_id, owner_desc, token, acquired_at,"
                        + " expires_at) VALUES ");
        for (int i = 0; i < keys.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(dialect == Dialect.H2
                    ? "(CAST(? AS VARBINARY(1000)), CAST(? AS CHARACTER VARYING))"
                    : "(?, ?, '', '', 0, " + never + ", " + never + ")");
        }
        sql.append(dialect == Dialect.H2 ? ") s (k, f) ON t.lock_key = s.k WHEN NOT MATCHED THEN INSERT (lock_key,"
                + " full_key, owner_id, owner_desc, token, acquired_at, expires_at) VALUES (s.k, s.f, '', '', 0, "
                + never + ", " + never + ")" : " ON DUPLICATE KEY UPDATE lock_key = lock_key");
        try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
            int parameter = 1;
            for (Stored key : keys) {
                statement.setBytes(parameter++, key.bytes());
                statement.setString(parameter++, key.full());
            }
            statement.executeUpdate();
        }
    }

    /**
     * Locks (and reads) the existing rows of {@code keys}, in key order, and reads the database's time; with an
     * {@code asker}, whether an older ticket than its own waits for each key (the same round trip).
     */
    private Map<String, Row> readRows(Connection connection, List<Stored> keys, LocalDateTime[] time, Asker asker)
            throws SQLException {
        Map<String, Row> rows = new HashMap<>();
        String queued = asker == null ? "FALSE" : "EXISTS (SELECT 1 FROM " + waiters + " w WHERE w.lock_key = l.lock_key"
                + " AND w.expires_at > " + now + " AND w.ticket_id <> ? AND (? = 0 OR w.ticket_order < ?))";
        try (PreparedStatement statement = connection.prepareStatement("SELECT l.lock_key, l.owner_id,"
                + " l.acquired_at, l.expires_at, " + now + ", " + queued + " FROM " + table + " l WHERE l.lock_key IN ("
                + marks(keys.size()) + ") ORDER BY l.lock_key FOR UPDATE")) {
            int parameter = 1;
            if (asker != null) {
                statement.setString(parameter++, asker.ticketId());
                statement.setLong(parameter++, asker.order());
                statement.setLong(parameter++, asker.order());
            }
            setKeys(statement, parameter, keys);
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    rows.put(new String(result.getBytes(1), StandardCharsets.ISO_8859_1),
                            new Row(result.getString(2), time(result, 3), time(result, 4), result.getBoolean(6)));
                    time[0] = time(result, 5);
                }
            }
        }
        if (time[0] == null) {
            time[0] = now(connection);
        }
        return rows;
    }

    // ---- acquire

    /**
     * One transaction: the keys' rows locked, then taken if all are free and no older ticket than the caller's waits
     * for one of them; else the ticket (if any) waits its turn in their queues, as {@code locks_acquire} does on
     * PostgreSQL.
     */
    @Override
    public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket, long waitNanos) {
        JdbcStore.requireAcquirable(keys, leaseMillis);
        boolean forever = leaseMillis == 0;
        long lease = forever ? infinite.leaseMillis() : leaseMillis;
        List<Stored> given = keys.stream().map(this::stored).toList();
        List<Stored> ordered = lockOrder(keys);
        Attempt attempt = attempt(keys, owner, waitNanos,
                connection -> acquire(connection, given, ordered, owner, lease, forever, ticket),
                (connection, undone) -> releaseRows(connection, undone));
        if (attempt.isTaken() && forever) {
            infinite.keep(keys, owner.id());
        }
        return attempt;
    }

    /** How a call whose outcome is unknown is undone: a release of the keys for their owner (tell nobody). */
    @FunctionalInterface
    private interface Undo {
        Set<String> release(Connection connection, List<Ownership> keys) throws SQLException;
    }

    /**
     * Runs an acquire in a transaction of its own within {@code waitNanos}; when its outcome is unknown (sent, never
     * answered), its keys are released for the owner once the server surely ran or dropped it, in the background.
     */
    private Attempt attempt(List<String> keys, Owner owner, long waitNanos, OwnConnections.Call<Attempt> acquire,
            Undo undo) {
        Attempt attempt;
        try {
            attempt = connections.run(connection -> transaction(connection, () -> "acquire " + keys,
                    () -> acquire.on(connection)), waitNanos);
            tellFreed();
        } catch (OwnConnections.Busy e) {
            freedHere.get().clear();
            throw busy("acquire " + keys, e);
        } catch (SQLException e) {
            freedHere.get().clear();
            LockUnavailableException failure = unavailable("acquire " + keys, e);
            List<Ownership> owned = keys.stream().distinct().map(k -> new Ownership(k, owner.id(), 0)).toList();
            connections.afterAbandoned(failure, "release " + keys, connection -> transaction(connection,
                    () -> "release " + keys, () -> undo.release(connection, owned)));
            throw failure;
        }
        return attempt;
    }

    private Attempt acquire(Connection connection, List<Stored> given, List<Stored> ordered, Owner owner, long lease,
            boolean forever, Ticket ticket) throws SQLException {
        LocalDateTime[] time = new LocalDateTime[1];
        long order = ticket == null ? 0 : ticket.order();
        Map<String, Row> rows = lockRows(connection, ordered, time, Asker.of(ticket));
        LocalDateTime at = time[0];
        int held = 0; // 1-based position (in the given order) of the first key someone else holds
        int queued = 0; // of the first key an older waiter waits for
        for (int i = 0; i < given.size(); i++) {
            Row row = rows.get(given.get(i).id());
            // a released row is free whatever its expires_at: the time of a release that committed after this call
            // read the database's clock (H2 keeps one time per transaction) lies after that time
            if (held == 0 && !row.ownerId().isEmpty() && row.expiresAt().isAfter(at)
                    && !row.ownerId().equals(owner.id())) {
                held = i + 1;
            }
            if (queued == 0 && row.queued()) {
                queued = i + 1;
            }
        }
        if (held == 0 && queued == 0) {
            long token = nextToken(connection, at);
            take(connection, ordered, owner, token, at, at.plus(lease, ChronoUnit.MILLIS), forever);
            if (ticket != null && order > 0) { // placed in some queues before
                leave(connection, ordered, ticket.id(), null);
            }
            return Attempt.taken(token);
        }
        return blocked(connection, given, held == 0 ? queued : queued == 0 ? held : Math.min(held, queued), ticket,
                at);
    }

    /**
     * An acquire blocked at the {@code blocked}-th key (1-based, in the given order): without a ticket, nothing is
     * kept; else the ticket waits its turn in the queues of the keys up to that one, and leaves the others'.
     */
    private Attempt blocked(Connection connection, List<Stored> given, int blocked, Ticket ticket, LocalDateTime at)
            throws SQLException {
        String blocker = given.get(blocked - 1).key();
        if (ticket == null) {
            connection.rollback(); // nothing to keep: rows created for this call go with it
            return Attempt.heldBy(blocker, 0);
        }
        long order = ticket.order() > 0 ? ticket.order() : nextTicket(connection);
        enqueueRows(connection, given.subList(0, blocked), ticket.id(), order, at.plus(ticket.leaseMillis(),
                ChronoUnit.MILLIS));
        if (blocked < given.size()) {
            leave(connection, given.subList(blocked, given.size()), ticket.id(), at);
        }
        return Attempt.heldBy(blocker, order);
    }

    /** The next fencing token: the counter plus one, at least the database's clock in microseconds. */
    private long nextToken(Connection connection, LocalDateTime at) throws SQLException {
        return next(connection, "fencing", micros(at));
    }

    private long nextTicket(Connection connection) throws SQLException {
        return next(connection, "ticket", 1);
    }

    /**
     * The counter {@code name} plus one, at least {@code floor}. A counter row that is missing (the script's insert
     * lost with a server that crashed before flushing it, a table emptied by hand) starts again at {@code floor}:
     * tokens, floored by the clock, still go up; a concurrent insert of it is a duplicate key, tried again.
     */
    private long next(Connection connection, String name, long floor) throws SQLException {
        // On MariaDB and MySQL the new value comes back in the update's answer (LAST_INSERT_ID(expr) sets the insert
        // id of its OK packet, which the drivers give as the generated key): no SELECT of the counter, one round trip
        // less while the counter row is locked. H2 reads it back.
        boolean inAnswer = dialect.mysqlFamily();
        try (PreparedStatement statement = inAnswer
                ? connection.prepareStatement("UPDATE " + counters + " SET counted = LAST_INSERT_ID(GREATEST(counted"
                        + " + 1, ?)) WHERE name = ?", Statement.RETURN_GENERATED_KEYS)
                : connection.prepareStatement("UPDATE " + counters + " SET counted = GREATEST(counted + 1, ?)"
                        + " WHERE name = ?")) {
            statement.setLong(1, floor);
            statement.setString(2, name);
            if (statement.executeUpdate() == 0) {
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + counters
                        + " (name, counted) VALUES (?, ?)")) {
                    insert.setString(1, name);
                    insert.setLong(2, floor);
                    insert.executeUpdate();
                }
            } else if (inAnswer) {
                try (ResultSet generated = statement.getGeneratedKeys()) {
                    if (generated.next() && generated.getLong(1) > 0) {
                        return generated.getLong(1);
                    }
                }
            }
        }
        return counter(connection, name);
    }

    private long counter(Connection connection, String name) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT counted FROM " + counters
                + " WHERE name = ?")) {
            statement.setString(1, name);
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("the counter '" + name + "' is missing from " + counters + " (apply "
                            + schema.scriptPath() + ")", "42S02");
                }
                return row.getLong(1);
            }
        }
    }

    private void take(Connection connection, List<Stored> keys, Owner owner, long token, LocalDateTime at,
            LocalDateTime expires, boolean forever) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table + " SET owner_id = ?,"
                + " owner_desc = ?, token = ?, acquired_at = ?, expires_at = ?, infinite = ?, released_at = NULL"
                + " WHERE lock_key IN (" + marks(keys.size()) + ")")) {
            statement.setString(1, owner.id());
            statement.setString(2, StoredText.encode(owner.description()));
            statement.setLong(3, token);
            setTime(statement, 4, at);
            setTime(statement, 5, expires);
            statement.setBoolean(6, forever);
            setKeys(statement, 7, keys);
            statement.executeUpdate();
        }
    }

    /** Places (or refreshes) {@code ticketId} in the queues of {@code keys}. */
    private void enqueueRows(Connection connection, List<Stored> keys, String ticketId, long order,
            LocalDateTime expires) throws SQLException {
        List<Stored> ordered = new ArrayList<>(keys);
        ordered.sort((a, b) -> Arrays.compareUnsigned(a.bytes(), b.bytes()));
        StringBuilder sql = new StringBuilder(dialect == Dialect.H2
                ? "MERGE INTO " + waiters + " (lock_key, ticket_id, ticket_order, expires_at) KEY (lock_key, ticket_id)"
                        + " VALUES "
                : "INSERT INTO " + waiters + " (lock_key, ticket_id, ticket_order, expires_at) VALUES ");
        for (int i = 0; i < ordered.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?, ?, ?)");
        }
        if (dialect != Dialect.H2) {
            sql.append(" ON DUPLICATE KEY UPDATE expires_at = VALUES(expires_at)");
        }
        try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
            int parameter = 1;
            for (Stored key : ordered) {
                statement.setBytes(parameter++, key.bytes());
                statement.setString(parameter++, ticketId);
                statement.setLong(parameter++, order);
                setTime(statement, parameter++, expires);
            }
            statement.executeUpdate();
        }
    }

    /**
     * Takes {@code ticketId} out of the queues of {@code keys}; with {@code at}, the keys it left that are free are
     * marked released, so that their next waiters on every node try again (the key may now be theirs).
     */
    private void leave(Connection connection, List<Stored> keys, String ticketId, LocalDateTime at)
            throws SQLException {
        int left;
        try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + waiters
                + " WHERE lock_key IN (" + marks(keys.size()) + ") AND ticket_id = ?")) {
            int parameter = setKeys(statement, 1, keys);
            statement.setString(parameter, ticketId);
            left = statement.executeUpdate();
        }
        if (left > 0 && at != null) {
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table + " SET released_at = ?"
                    + " WHERE lock_key IN (" + marks(keys.size()) + ") AND expires_at <= ?")) {
                setTime(statement, 1, at);
                int parameter = setKeys(statement, 2, lockOrder(keys.stream().map(Stored::key).toList()));
                setTime(statement, parameter, at);
                if (statement.executeUpdate() > 0) {
                    keys.forEach(key -> tell(key.key()));
                }
            }
        }
    }

    @Override
    public long enqueue(List<String> keys, Ticket ticket, long waitNanos) {
        List<Stored> stored = keys.stream().map(this::stored).toList();
        return run(() -> "queue a waiter for " + keys, waitNanos, connection -> {
            LocalDateTime at = now(connection);
            long order = ticket.order() > 0 ? ticket.order() : nextTicket(connection);
            enqueueRows(connection, stored, ticket.id(), order, at.plus(ticket.leaseMillis(), ChronoUnit.MILLIS));
            return order;
        });
    }

    @Override
    public boolean refreshesTickets() {
        return true;
    }

    /**
     * One transaction for every ticket of the node, whatever their number: the clock, then an {@code UPDATE} of the
     * ticket rows still there (never an insert) per {@value #REFRESH_BATCH} of them, in the order rows are locked
     * (key, then ticket). A waiter that refreshed its own ticket cost MariaDB 55 of its 70 statements per acquisition
     * with 1,000 waiters on a key ({@code docs/benchmarks.md}).
     */
    @Override
    public void refreshTickets(List<Queued> tickets, long leaseMillis) {
        record Row(Stored key, String ticketId) {
        }
        List<Row> rows = new ArrayList<>();
        for (Queued queued : tickets) {
            for (String key : queued.keys()) {
                rows.add(new Row(stored(key), queued.ticketId()));
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        rows.sort((a, b) -> {
            int byKey = Arrays.compareUnsigned(a.key().bytes(), b.key().bytes());
            return byKey != 0 ? byKey : a.ticketId().compareTo(b.ticketId());
        });
        run(() -> "refresh " + tickets.size() + " waiters' tickets", UNBOUNDED_WAIT, connection -> {
            LocalDateTime expires = now(connection).plus(leaseMillis, ChronoUnit.MILLIS);
            for (int from = 0; from < rows.size(); from += REFRESH_BATCH) {
                List<Row> batch = rows.subList(from, Math.min(rows.size(), from + REFRESH_BATCH));
                try (PreparedStatement statement = connection.prepareStatement("UPDATE " + waiters
                        + " SET expires_at = ? WHERE (lock_key, ticket_id) IN ("
                        + marks(batch.size(), "(?, ?)") + ")")) {
                    setTime(statement, 1, expires);
                    int parameter = 2;
                    for (Row row : batch) {
                        statement.setBytes(parameter++, row.key().bytes());
                        statement.setString(parameter++, row.ticketId());
                    }
                    statement.executeUpdate();
                }
            }
            return null;
        });
    }

    /** How many ticket rows one statement of {@link #refreshTickets} extends. */
    private static final int REFRESH_BATCH = 500;

    @Override
    public void dequeue(List<String> keys, String ticketId, long waitNanos) {
        List<Stored> stored = lockOrder(keys);
        run(() -> "take a waiter for " + keys + " out of the queues", waitNanos, connection -> {
            leave(connection, stored, ticketId, now(connection));
            return null;
        });
    }

    // ---- release, renew

    @Override
    public Set<String> release(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        infinite.forget(keys);
        return run(() -> "release " + keysOf(keys), UNBOUNDED_WAIT, connection -> releaseRows(connection, keys));
    }

    /**
     * Frees each key its owner still holds (owner id cleared, {@code released_at} set: the pollers of other nodes see
     * it). Returns the keys their owner no longer held (expired or taken). This node's waiters are told once the call
     * gave its connection back ({@link #tellFreed}): those the store turned away (an older ticket, this node's own
     * too, waited for a key) learn of the release only so, as PostgreSQL's notice tells them; those this node's memory
     * held up are woken by the engine, which frees the keys there right after (a waiter woken first helps the
     * releasing entry out of the table, and finds the keys free in the store).
     */
    private Set<String> releaseRows(Connection connection, List<Ownership> keys) throws SQLException {
        if (keys.stream().map(Ownership::ownerId).distinct().count() == 1 && releaseLive(connection, keys)) {
            return Set.of();
        }
        Map<String, Ownership> byKey = new HashMap<>();
        keys.forEach(k -> byKey.put(k.key(), k));
        List<Stored> ordered = lockOrder(List.copyOf(byKey.keySet()));
        LocalDateTime[] time = new LocalDateTime[1];
        Map<String, Row> rows = readRows(connection, ordered, time, null);
        List<Stored> freed = new ArrayList<>();
        Set<String> lost = new LinkedHashSet<>();
        for (Stored key : ordered) {
            Row row = rows.get(key.id());
            String owner = byKey.get(key.key()).ownerId();
            if (row == null || !row.ownerId().equals(owner)) {
                lost.add(key.key());
                continue;
            }
            freed.add(key);
            if (!row.expiresAt().isAfter(time[0])) {
                lost.add(key.key());
            }
        }
        free(connection, freed, time[0]);
        freed.forEach(key -> tell(key.key()));
        return lost;
    }

    /**
     * The usual release, in one statement: every key still held by its one owner and live. Whether it was so; when
     * not, the transaction is rolled back for the release that finds out which keys were lost.
     */
    private boolean releaseLive(Connection connection, List<Ownership> keys) throws SQLException {
        List<Stored> ordered = lockOrder(keysOf(keys));
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table + " SET owner_id = '',"
                + " owner_desc = '', infinite = FALSE, expires_at = " + now + ", released_at = " + now
                + " WHERE lock_key IN (" + marks(ordered.size()) + ") AND owner_id = ? AND expires_at > " + now)) {
            int parameter = setKeys(statement, 1, ordered);
            statement.setString(parameter, keys.get(0).ownerId());
            if (statement.executeUpdate() == ordered.size()) {
                ordered.forEach(key -> tell(key.key()));
                return true;
            }
        }
        connection.rollback();
        return false;
    }

    /** Frees the rows of {@code keys} (locked by the caller) as released at {@code at}. */
    private void free(Connection connection, List<Stored> keys, LocalDateTime at) throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table + " SET owner_id = '',"
                + " owner_desc = '', infinite = FALSE, expires_at = ?, released_at = ? WHERE lock_key IN ("
                + marks(keys.size()) + ")")) {
            setTime(statement, 1, at);
            setTime(statement, 2, at);
            setKeys(statement, 3, keys);
            statement.executeUpdate();
        }
    }

    @Override
    public boolean holdsAtLeast() {
        return true;
    }

    /**
     * As {@code locks_release_held} on PostgreSQL: a key closed before its hold-at-least time is held over in its row
     * (owner id marked {@value #HELD_SUFFIX}, {@code expires_at} at its {@code acquired_at} plus the hold).
     */
    @Override
    public Held releaseHeld(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return new Held(Set.of(), Map.of());
        }
        infinite.forget(keys);
        List<Long> pairs = run(() -> "release " + keysOf(keys), UNBOUNDED_WAIT, connection -> {
            List<Stored> ordered = lockOrder(keysOf(keys));
            LocalDateTime[] time = new LocalDateTime[1];
            Map<String, Row> rows = readRows(connection, ordered, time, null);
            LocalDateTime at = time[0];
            List<Long> result = new ArrayList<>();
            List<Stored> freed = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                Ownership key = keys.get(i);
                Stored stored = stored(key.key());
                Row row = rows.get(stored.id());
                if (row == null || !(row.ownerId().equals(key.ownerId())
                        || row.ownerId().equals(key.ownerId() + HELD_SUFFIX))) {
                    result.addAll(List.of(i + 1L, 0L));
                    continue;
                }
                LocalDateTime until = row.acquiredAt().plus(key.holdMillis(), ChronoUnit.MILLIS);
                if (row.expiresAt().isAfter(at) && until.isAfter(at)) {
                    try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table
                            + " SET owner_id = ?, expires_at = ?, infinite = FALSE WHERE lock_key = ?")) {
                        statement.setString(1, key.ownerId() + HELD_SUFFIX);
                        setTime(statement, 2, until);
                        statement.setBytes(3, stored.bytes());
                        statement.executeUpdate();
                    }
                    long micros = micros(until) - micros(at);
                    result.addAll(List.of(i + 1L, (micros + 999) / 1000));
                    continue;
                }
                freed.add(stored);
                if (!row.expiresAt().isAfter(at) && row.ownerId().equals(key.ownerId())) {
                    result.addAll(List.of(i + 1L, 0L)); // its lease had run out before the release
                }
            }
            freed.sort((a, b) -> Arrays.compareUnsigned(a.bytes(), b.bytes()));
            free(connection, freed, at);
            return result;
        });
        return Held.ofPairs(keys, pairs);
    }

    @Override
    public Set<String> renew(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        return run(() -> "renew " + keys.size() + " locks", UNBOUNDED_WAIT, connection -> {
            List<Stored> ordered = lockOrder(keysOf(keys));
            Map<String, Ownership> byKey = new HashMap<>();
            keys.forEach(k -> byKey.put(k.key(), k));
            LocalDateTime[] time = new LocalDateTime[1];
            Map<String, Row> rows = readRows(connection, ordered, time, null);
            Set<String> lost = new LinkedHashSet<>();
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table
                    + " SET expires_at = ? WHERE lock_key = ?")) {
                boolean any = false;
                for (Stored key : ordered) {
                    Ownership ownership = byKey.get(key.key());
                    Row row = rows.get(key.id());
                    if (row == null || !row.ownerId().equals(ownership.ownerId()) || !row.expiresAt().isAfter(time[0])) {
                        lost.add(key.key());
                        continue;
                    }
                    long lease = ownership.leaseMillis() == 0 ? infinite.leaseMillis() : ownership.leaseMillis();
                    setTime(statement, 1, time[0].plus(Math.max(1, lease), ChronoUnit.MILLIS));
                    statement.setBytes(2, key.bytes());
                    statement.addBatch();
                    any = true;
                }
                if (any) {
                    statement.executeBatch();
                }
            }
            return lost;
        });
    }

    // ---- shared and counted holds (SPEC 13)

    /** The start of a group row's owner id: {@code ~shared} or {@code ~permits:<n>}, never an owner's id. */
    private static final String GROUP = "~";

    /**
     * As on PostgreSQL ({@code locks_acquire_shared}): each key's row in the lock table is its group row (owner id
     * {@code ~shared} or {@code ~permits:<n>}, expiring with its latest holder), which keeps exclusive acquirers out;
     * each holder is a row of {@code <prefix>holder} with its own owner, token and expiry.
     */
    @Override
    public boolean holdsShared() {
        return true;
    }

    /** Every ticket counts in the queues, this node's own too (see {@link Asker}). */
    @Override
    public boolean queuesOwnWaiters() {
        return true;
    }

    /**
     * One transaction: the keys' rows locked in key order (created when missing), then their live holders read; all
     * keys joined if each is free or held by the same kind of group with a permit left, and no older ticket of another
     * node waits for one of them; the token drawn last, one per holder. A lease of infinite lock timeout is held under
     * the store's lease, which the engine renews ({@link #renewShared}).
     */
    @Override
    public Attempt tryAcquireShared(List<String> keys, Owner owner, long leaseMillis, int permits, Ticket ticket,
            long waitNanos) {
        StoreKeys.requireSharedAcquire(keys, permits);
        boolean forever = leaseMillis == 0;
        long lease = forever ? infinite.leaseMillis() : leaseMillis;
        List<Stored> given = keys.stream().map(this::stored).toList();
        List<Stored> ordered = lockOrder(keys);
        return attempt(keys, owner, waitNanos,
                connection -> acquireShared(connection, given, ordered, owner, lease, forever, permits, ticket),
                (connection, undone) -> releaseHolders(connection, undone, false));
    }

    private Attempt acquireShared(Connection connection, List<Stored> given, List<Stored> ordered, Owner owner,
            long lease, boolean forever, int permits, Ticket ticket) throws SQLException {
        LocalDateTime[] time = new LocalDateTime[1];
        Map<String, Row> rows = lockRows(connection, ordered, time, Asker.of(ticket));
        LocalDateTime at = time[0];
        String group = permits < 0 ? "~shared" : "~permits:" + permits;
        List<Stored> joined = new ArrayList<>(); // live groups of the same kind
        List<Stored> fresh = new ArrayList<>(); // free keys: a new group each
        for (Stored key : ordered) {
            Row row = rows.get(key.id());
            (live(row, at) && row.ownerId().equals(group) ? joined : fresh).add(key);
        }
        Map<String, Integer> others = otherHolders(connection, joined, owner.id(), at);
        int blocked = 0;
        for (int i = 0; i < given.size() && blocked == 0; i++) {
            Stored key = given.get(i);
            Row row = rows.get(key.id());
            if (live(row, at) && !row.ownerId().startsWith(GROUP)) { // held exclusive (or held over)
                if (permits > 0) {
                    connection.rollback();
                    return Attempt.mismatch(key.key(), 1);
                }
                blocked = i + 1;
            } else if (live(row, at) && !row.ownerId().equals(group)) {
                connection.rollback();
                return Attempt.mismatch(key.key(), row.ownerId().equals("~shared") ? SHARED
                        : Integer.parseInt(row.ownerId().substring("~permits:".length())));
            } else if (permits > 0 && others.getOrDefault(key.id(), 0) >= permits || row.queued()) {
                blocked = i + 1;
            }
        }
        if (blocked > 0) {
            return blocked(connection, given, blocked, ticket, at);
        }
        LocalDateTime until = at.plus(lease, ChronoUnit.MILLIS);
        if (!fresh.isEmpty()) { // the holders of an earlier group (expired, forced out) are gone
            deleteHolders(connection, fresh, null);
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table + " SET owner_id = ?,"
                    + " owner_desc = ?, token = 0, acquired_at = ?, expires_at = ?, infinite = FALSE,"
                    + " released_at = NULL WHERE lock_key IN (" + marks(fresh.size()) + ")")) {
                statement.setString(1, group);
                statement.setString(2, group);
                setTime(statement, 3, at);
                setTime(statement, 4, until);
                setKeys(statement, 5, fresh);
                statement.executeUpdate();
            }
        }
        if (!joined.isEmpty()) {
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table
                    + " SET expires_at = ? WHERE lock_key IN (" + marks(joined.size()) + ") AND expires_at < ?")) {
                setTime(statement, 1, until); // never earlier: a time bound as text is compared as a time here
                setTime(statement, setKeys(statement, 2, joined), until);
                statement.executeUpdate();
            }
        }
        long token = nextToken(connection, at);
        writeHolders(connection, ordered, owner, token, at, until, forever);
        if (ticket != null && ticket.order() > 0) { // placed in some queues before
            leave(connection, ordered, ticket.id(), null);
        }
        return Attempt.taken(token);
    }

    private static boolean live(Row row, LocalDateTime at) {
        return row != null && !row.ownerId().isEmpty() && row.expiresAt().isAfter(at);
    }

    /** How many live holders other than {@code ownerId} each key of {@code keys} has (by {@link Stored#id()}). */
    private Map<String, Integer> otherHolders(Connection connection, List<Stored> keys, String ownerId,
            LocalDateTime at) throws SQLException {
        Map<String, Integer> counts = new HashMap<>();
        if (keys.isEmpty()) {
            return counts;
        }
        try (PreparedStatement statement = connection.prepareStatement("SELECT lock_key FROM " + holders
                + " WHERE lock_key IN (" + marks(keys.size()) + ") AND owner_id <> ? AND expires_at > ?")) {
            int parameter = setKeys(statement, 1, keys);
            statement.setString(parameter++, ownerId);
            setTime(statement, parameter, at);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    counts.merge(new String(rows.getBytes(1), StandardCharsets.ISO_8859_1), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    /** Deletes the holders of {@code keys}: all of them, or only {@code ownerId}'s. */
    private int deleteHolders(Connection connection, List<Stored> keys, String ownerId) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + holders + " WHERE lock_key IN ("
                + marks(keys.size()) + ")" + (ownerId == null ? "" : " AND owner_id = ?"))) {
            int parameter = setKeys(statement, 1, keys);
            if (ownerId != null) {
                statement.setString(parameter, ownerId);
            }
            return statement.executeUpdate();
        }
    }

    /** Writes {@code owner}'s place in each key (in key order): a new row, or its own earlier one replaced. */
    private void writeHolders(Connection connection, List<Stored> keys, Owner owner, long token, LocalDateTime at,
            LocalDateTime until, boolean forever) throws SQLException {
        String columns = " (lock_key, owner_id, owner_desc, token, acquired_at, expires_at, infinite)";
        StringBuilder sql = new StringBuilder(dialect == Dialect.H2
                ? "MERGE INTO " + holders + columns + " KEY (lock_key, owner_id) VALUES "
                : "INSERT INTO " + holders + columns + " VALUES ");
        for (int i = 0; i < keys.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?)");
        }
        if (dialect != Dialect.H2) {
            sql.append(" ON DUPLICATE KEY UPDATE owner_desc = VALUES(owner_desc), token = VALUES(token),"
                    + " acquired_at = VALUES(acquired_at), expires_at = VALUES(expires_at), infinite = VALUES(infinite)");
        }
        try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
            int parameter = 1;
            for (Stored key : keys) {
                statement.setBytes(parameter++, key.bytes());
                statement.setString(parameter++, owner.id());
                statement.setString(parameter++, StoredText.encode(owner.description()));
                statement.setLong(parameter++, token);
                setTime(statement, parameter++, at);
                setTime(statement, parameter++, until);
                statement.setBoolean(parameter++, forever);
            }
            statement.executeUpdate();
        }
    }

    /** The ownerships of a call by key, their keys in key order, their rows as locked and the database's time. */
    private record Owned(Map<String, Ownership> byKey, List<Stored> ordered, Map<String, Row> rows, LocalDateTime at) {
    }

    /** Locks (and reads) the existing rows of the keys of {@code keys}, in key order. */
    private Owned lockOwned(Connection connection, List<Ownership> keys) throws SQLException {
        Map<String, Ownership> byKey = new HashMap<>();
        keys.forEach(k -> byKey.put(k.key(), k));
        List<Stored> ordered = lockOrder(List.copyOf(byKey.keySet()));
        LocalDateTime[] time = new LocalDateTime[1];
        Map<String, Row> rows = readRows(connection, ordered, time, null);
        return new Owned(byKey, ordered, rows, time[0]);
    }

    /** A holder's row as read with its key's group row locked. */
    private record Holder(String key, String ownerId, LocalDateTime expiresAt) {
    }

    /** The holders of {@code keys} (their group rows locked by the caller), by {@link Stored#id()}. */
    private Map<String, List<Holder>> holders(Connection connection, List<Stored> keys) throws SQLException {
        Map<String, List<Holder>> found = new HashMap<>();
        try (PreparedStatement statement = connection.prepareStatement("SELECT lock_key, owner_id, expires_at FROM "
                + holders + " WHERE lock_key IN (" + marks(keys.size()) + ")")) {
            setKeys(statement, 1, keys);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    String id = new String(rows.getBytes(1), StandardCharsets.ISO_8859_1);
                    found.computeIfAbsent(id, k -> new ArrayList<>()).add(new Holder(id, rows.getString(2),
                            time(rows, 3)));
                }
            }
        }
        return found;
    }

    @Override
    public Set<String> releaseShared(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        return run(() -> "release " + keysOf(keys), UNBOUNDED_WAIT, connection -> releaseHolders(connection, keys,
                true));
    }

    /**
     * Takes each owner's place out of its key (the other holders keep theirs): the group row then expires with its
     * latest live holder, or is freed with the last one; either way it is marked released (a freed permit may be a
     * waiter's, on any node). Returns the keys on which their owner no longer held a live place.
     */
    private Set<String> releaseHolders(Connection connection, List<Ownership> keys, boolean tell) throws SQLException {
        Owned owned = lockOwned(connection, keys);
        Map<String, Ownership> byKey = owned.byKey();
        List<Stored> ordered = owned.ordered();
        Map<String, Row> rows = owned.rows();
        LocalDateTime at = owned.at();
        List<Stored> groups = ordered.stream().filter(key -> rows.containsKey(key.id())
                && rows.get(key.id()).ownerId().startsWith(GROUP)).toList();
        Map<String, List<Holder>> held = groups.isEmpty() ? Map.of() : holders(connection, groups);
        Set<String> lost = new LinkedHashSet<>();
        List<Stored> freed = new ArrayList<>();
        List<Stored> told = new ArrayList<>();
        for (Stored key : ordered) {
            String owner = byKey.get(key.key()).ownerId();
            if (!groups.contains(key)) {
                lost.add(key.key());
                continue;
            }
            boolean alive = false;
            LocalDateTime latest = null;
            for (Holder holder : held.getOrDefault(key.id(), List.of())) {
                if (holder.ownerId().equals(owner)) {
                    alive = holder.expiresAt().isAfter(at);
                } else if (holder.expiresAt().isAfter(at) && (latest == null || holder.expiresAt().isAfter(latest))) {
                    latest = holder.expiresAt();
                }
            }
            if (!alive) {
                lost.add(key.key());
            }
            deleteHolders(connection, List.of(key), owner);
            if (latest == null) {
                deleteHolders(connection, List.of(key), null);
                freed.add(key);
            } else {
                try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table
                        + " SET expires_at = ?, released_at = ? WHERE lock_key = ?")) {
                    setTime(statement, 1, latest);
                    setTime(statement, 2, at);
                    statement.setBytes(3, key.bytes());
                    statement.executeUpdate();
                }
                told.add(key);
            }
        }
        free(connection, freed, at);
        if (tell) {
            connection.commit();
            freed.forEach(key -> tell(key.key()));
            told.forEach(key -> tell(key.key()));
        }
        return lost;
    }

    /** Extends the lease of each owner's live place in its key, and its group row's with it (never an expired one). */
    @Override
    public Set<String> renewShared(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        return run(() -> "renew " + keys.size() + " shared or counted locks", UNBOUNDED_WAIT, connection -> {
            Owned owned = lockOwned(connection, keys);
            LocalDateTime at = owned.at();
            Set<String> lost = new LinkedHashSet<>();
            for (Stored key : owned.ordered()) {
                Ownership ownership = owned.byKey().get(key.key());
                Row row = owned.rows().get(key.id());
                long lease = ownership.leaseMillis() > 0 ? ownership.leaseMillis() : infinite.leaseMillis();
                LocalDateTime until = at.plus(Math.max(1, lease), ChronoUnit.MILLIS);
                int renewed = 0;
                if (live(row, at) && row.ownerId().startsWith(GROUP)) {
                    try (PreparedStatement statement = connection.prepareStatement("UPDATE " + holders
                            + " SET expires_at = ? WHERE lock_key = ? AND owner_id = ? AND expires_at > ?")) {
                        setTime(statement, 1, until);
                        statement.setBytes(2, key.bytes());
                        statement.setString(3, ownership.ownerId());
                        setTime(statement, 4, at);
                        renewed = statement.executeUpdate();
                    }
                }
                if (renewed == 0) {
                    lost.add(key.key());
                    continue;
                }
                try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table
                        + " SET expires_at = ? WHERE lock_key = ? AND expires_at < ?")) {
                    setTime(statement, 1, until);
                    statement.setBytes(2, key.bytes());
                    setTime(statement, 3, until);
                    statement.executeUpdate();
                }
            }
            return lost;
        });
    }

    // ---- listing, force release, sweep

    @Override
    public List<RemoteLock> scan(int batchSize, int limit) {
        JdbcStore.requireBatchSize(batchSize);
        String prefix = StoredText.encode(keyPrefix);
        String upperText = JdbcLockStore.upperBound(prefix);
        byte[] upper = upperText == null ? null : upperText.getBytes(StandardCharsets.UTF_8);
        byte[][] after = {prefix.getBytes(StandardCharsets.UTF_8)};
        List<RemoteLock> locks = new ArrayList<>();
        while (locks.size() < limit) {
            int size = Math.min(batchSize, limit - locks.size());
            byte[] from = after[0];
            int[] read = {0};
            List<RemoteLock> batch = run(() -> "list the locks in " + table, UNBOUNDED_WAIT, connection -> {
                try (PreparedStatement statement = connection.prepareStatement(columns(" WHERE lock_key > ?"
                        + (upper == null ? "" : " AND lock_key < ?") + " AND owner_id <> '' AND expires_at > " + now
                        + " ORDER BY lock_key" + limit(size)))) {
                    statement.setBytes(1, from);
                    if (upper != null) {
                        statement.setBytes(2, upper);
                    }
                    return locks(statement, after, read);
                }
            });
            locks.addAll(batch);
            if (read[0] < size) { // a batch reads up to size keys: one row each, or one per holder
                break;
            }
        }
        return locks.size() > limit ? List.copyOf(locks.subList(0, limit)) : locks;
    }

    /**
     * The rows of the lock table that {@code where} selects, each read as its lock; a key held shared or by permits
     * (its group row's owner id starts with {@value #GROUP}) as each of its live holders instead, in token order.
     */
    private String columns(String where) {
        return "SELECT l.lock_key, l.full_key, COALESCE(h.owner_id, l.owner_id), COALESCE(h.owner_desc, l.owner_desc),"
                + " COALESCE(h.token, l.token), COALESCE(h.acquired_at, l.acquired_at),"
                + " COALESCE(h.expires_at, l.expires_at), COALESCE(h.infinite, l.infinite), l.owner_id, h.owner_id"
                + " FROM (SELECT * FROM " + table + where + ") l LEFT JOIN " + holders + " h ON LEFT(l.owner_id, 1) = '"
                + GROUP + "' AND h.lock_key = l.lock_key AND h.token > 0 AND h.expires_at > " + now
                + " ORDER BY l.lock_key, h.token";
    }

    /** The locks {@code statement} reads; {@code last[0]} becomes its last key as stored, {@code read[0]} its keys. */
    private List<RemoteLock> locks(PreparedStatement statement, byte[][] last, int[] read) throws SQLException {
        List<RemoteLock> locks = new ArrayList<>();
        try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                byte[] lockKey = rows.getBytes(1);
                if (!Arrays.equals(lockKey, last[0])) {
                    read[0]++;
                }
                last[0] = lockKey;
                String key = keyOf(last[0], rows.getString(2));
                if (key != null && (!rows.getString(9).startsWith(GROUP) || rows.getString(10) != null)) {
                    locks.add(new RemoteLock(key, rows.getString(3), StoredText.decode(rows.getString(4)),
                            rows.getLong(5), instant(time(rows, 6)),
                            rows.getBoolean(8) ? Instant.MAX : instant(time(rows, 7))));
                }
            }
        }
        return locks;
    }

    @Override
    public RemoteLock get(String key) {
        StoreKeys.requireValid(key);
        Stored stored = stored(key);
        List<RemoteLock> found = run(() -> "read the lock on '" + key + "'", UNBOUNDED_WAIT, connection -> {
            try (PreparedStatement statement = connection.prepareStatement(columns(
                    " WHERE lock_key = ? AND owner_id <> '' AND expires_at > " + now))) {
                statement.setBytes(1, stored.bytes());
                return locks(statement, new byte[1][], new int[1]);
            }
        });
        return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public boolean forceRelease(String key) {
        StoreKeys.requireValid(key);
        Stored stored = stored(key);
        boolean found = run(() -> "force-release '" + key + "'", UNBOUNDED_WAIT, connection -> {
            LocalDateTime at = now(connection);
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table + " SET owner_id = '',"
                    + " owner_desc = '', infinite = FALSE, expires_at = ?, released_at = ? WHERE lock_key = ?"
                    + " AND owner_id <> ''")) {
                setTime(statement, 1, at);
                setTime(statement, 2, at);
                statement.setBytes(3, stored.bytes());
                boolean held = statement.executeUpdate() > 0;
                deleteHolders(connection, List.of(stored), null); // shared or counted holders, if any
                return held;
            }
        });
        tell(key);
        tellFreed();
        return found;
    }

    @Override
    public void ping() {
        try {
            connections.ping();
        } catch (SQLException e) {
            throw unavailable("reach the database", e);
        }
    }

    /**
     * Frees up to {@code limit} expired locks of any node (marked released: their waiters everywhere try again),
     * deletes rows free for a minute (the pollers have seen them), up to {@code limit} expired tickets and up to
     * {@code limit} expired holders of shared or counted locks. Returns how many locks were freed.
     */
    @Override
    public int purge(int limit) {
        return run(() -> "remove expired locks from " + table, UNBOUNDED_WAIT, connection -> {
            LocalDateTime at = now(connection);
            int freed;
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table + " SET owner_id = '',"
                    + " owner_desc = '', infinite = FALSE, released_at = ? WHERE owner_id <> '' AND expires_at <= ?"
                    + limit(limit))) {
                setTime(statement, 1, at);
                setTime(statement, 2, at);
                freed = statement.executeUpdate();
            }
            LocalDateTime old = at.minus(FREE_ROW_MILLIS, ChronoUnit.MILLIS);
            try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + table
                    + " WHERE owner_id = '' AND expires_at < ? AND (released_at IS NULL OR released_at < ?)"
                    + limit(limit))) {
                setTime(statement, 1, old);
                setTime(statement, 2, old);
                statement.executeUpdate();
            }
            for (String expiring : List.of(waiters, holders)) {
                try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + expiring
                        + " WHERE expires_at <= ?" + limit(limit))) {
                    setTime(statement, 1, at);
                    statement.executeUpdate();
                }
            }
            return freed;
        });
    }

    // ---- releases of other nodes

    /**
     * Starts the poller: one query every poll interval for the keys released since the last (on any node), unless
     * notification is off. Releases on this node are told at once.
     */
    @Override
    public synchronized boolean subscribe(Consumer<String> released, Runnable missed) {
        Objects.requireNonNull(released, "released");
        Objects.requireNonNull(missed, "missed");
        if (pollMillis <= 0) {
            return false;
        }
        if (poller != null) {
            throw new IllegalStateException("this JDBC lock store already polls for releases (one poller per node)");
        }
        this.released = released;
        poller = new ReleasePoller(pollMillis, this::poll, released, missed);
        return true;
    }

    /** The keys released after {@code since} (the database's time): their key and time, and the time now. */
    private ReleasePoller.Batch poll(LocalDateTime since) throws SQLException {
        return connections.run(connection -> {
            List<ReleasePoller.Release> releases = new ArrayList<>();
            LocalDateTime at;
            try (PreparedStatement statement = connection.prepareStatement("SELECT lock_key, full_key, released_at, "
                    + now + " FROM " + table + " WHERE released_at > ? UNION ALL SELECT NULL, NULL, NULL, " + now
                    + (dialect == Dialect.H2 ? "" : " FROM DUAL"))) {
                setTime(statement, 1, since == null ? LocalDateTime.now(ZoneOffset.UTC).plusYears(100) : since);
                at = null;
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        at = time(rows, 4);
                        byte[] lockKey = rows.getBytes(1);
                        if (lockKey != null) {
                            String key = keyOf(lockKey, rows.getString(2));
                            if (key != null) {
                                releases.add(new ReleasePoller.Release(key, time(rows, 3)));
                            }
                        }
                    }
                }
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            return new ReleasePoller.Batch(at, releases);
        }, TimeUnit.MILLISECONDS.toNanos(Math.max(pollMillis, timeoutMillis)));
    }

    /** Tells this node's waiters that {@code key} was released here, once the call is over ({@link #tellFreed}). */
    private void tell(String key) {
        freedHere.get().add(key);
    }

    /** Tells this node's waiters of the keys the call on this thread freed. */
    private void tellFreed() {
        List<String> freed = freedHere.get();
        if (freed.isEmpty()) {
            return;
        }
        List<String> keys = List.copyOf(freed);
        freed.clear();
        Consumer<String> listener = released;
        if (listener != null) {
            keys.forEach(listener);
        }
    }

    @Override
    public synchronized void close() {
        infinite.close();
        if (poller != null) {
            poller.close();
            poller = null;
        }
        connections.close();
    }

    // ---- transactions

    /** A body of statements in one transaction. */
    @FunctionalInterface
    private interface Body<T> {
        T run() throws SQLException;
    }

    private <T> T run(Supplier<String> what, long waitNanos, OwnConnections.Call<T> call) {
        T result;
        try {
            result = connections.run(connection -> transaction(connection, what, () -> call.on(connection)), waitNanos);
        } catch (OwnConnections.Busy e) {
            freedHere.get().clear();
            throw busy(what.get(), e);
        } catch (SQLException e) {
            freedHere.get().clear();
            throw unavailable(what.get(), e);
        }
        tellFreed();
        return result;
    }

    /**
     * Runs {@code body} in a transaction of its own and commits it (a body may commit itself first); a deadlock
     * victim, lock-wait timeout, duplicate key or serialization failure is rolled back and the body runs again, within
     * the timeout, after a short random pause (logged at DEBUG only: the database's concurrency is this store's
     * business, SPEC 9).
     */
    private <T> T transaction(Connection connection, Supplier<String> what, Body<T> body) throws SQLException {
        // The caller's interrupt status is kept aside while the statements run: H2, in this thread, waits for row
        // locks in ways that swallow it (a waiter interrupted while it waited for a connection would then never
        // learn it was interrupted), and the drivers of the other databases ignore it anyway.
        boolean interrupted = Thread.interrupted();
        try {
            return transaction(connection, what, body, interrupted);
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private <T> T transaction(Connection connection, Supplier<String> what, Body<T> body, boolean wasInterrupted)
            throws SQLException {
        boolean interrupted = wasInterrupted;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        if (connection.getAutoCommit()) {
            connection.setAutoCommit(false); // the store's own connection: it stays so
        }
        for (int attempt = 1;; attempt++) {
            freedHere.get().clear(); // what a rolled-back attempt freed, it did not
            try {
                T result = body.run();
                connection.commit();
                return result;
            } catch (SQLException e) {
                rollbackQuietly(connection);
                if (!concurrencyError(e) || System.nanoTime() - deadline > 0) {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    throw e;
                }
                int tries = attempt;
                LOG.log(Level.DEBUG, () -> "retrying (" + tries + ") to " + what.get() + " after a concurrent"
                        + " transaction's conflict: " + e.getMessage());
                interrupted |= pause(attempt);
            }
        }
    }

    /** A deadlock victim, a lock-wait timeout, a duplicate key, a serialization failure (MariaDB, MySQL, H2). */
    static boolean concurrencyError(SQLException e) {
        for (SQLException cause = e; cause != null; cause = cause.getNextException()) {
            int code = cause.getErrorCode();
            String state = String.valueOf(cause.getSQLState());
            if (code == 1213 || code == 1205 || code == 1062 || code == 1020 || state.equals("40001")
                    || state.equals("23505") || state.equals("HYT00") || code == 50200 || code == 90131
                    || code == 40001 || code == 23505) {
                return true;
            }
            if (cause.getNextException() == cause) {
                break;
            }
        }
        return false;
    }

    /** A short random pause before a retry; whether the thread was interrupted meanwhile (kept for the caller). */
    private static boolean pause(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2L + Math.min(attempt, 10) * 2L));
            return false;
        } catch (InterruptedException e) {
            return true; // the retry goes on; the caller gets its status back
        }
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // a broken connection: OwnConnections replaces it
        }
    }

    private StoreBusyException busy(String what, OwnConnections.Busy e) {
        return new StoreBusyException("The JDBC lock store could not " + what + " in time: " + e.getMessage() + ".");
    }

    private LockUnavailableException unavailable(String what, SQLException e) {
        return new LockUnavailableException("JDBC lock store (" + dialect.product() + ", table " + table
                + ") could not " + what + ": " + e.getMessage() + " (is the database reachable, and its schema in"
                + " place? see " + schema.scriptPath() + ")", e);
    }

    private static List<String> keysOf(List<Ownership> keys) {
        return keys.stream().map(Ownership::key).toList();
    }
}
