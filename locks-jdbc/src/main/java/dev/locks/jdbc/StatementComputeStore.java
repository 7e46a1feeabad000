package dev.locks.jdbc;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The {@link dev.locks.spi.RemoteComputeStore} on the databases without stored routines or notifications (MariaDB,
 * MySQL, H2): the same tables as on PostgreSQL ({@code <prefix>value}, {@code <prefix>compute}) plus
 * {@code <prefix>compute_notice}, written by plain statements in short transactions on the cache's own connections.
 *
 * <ul>
 *   <li><b>One key at a time.</b> Every step that changes a key first locks the key's record row (the one with
 *       {@code invalidated = false}; {@code SELECT ... FOR UPDATE}, inserted as an expired placeholder the first time
 *       the key misses), then reads the database's clock and does the rest: the steps of one key run one after the
 *       other, as the functions of PostgreSQL do under their advisory lock. A record whose {@code expires_at} has
 *       passed counts as absent; invalidating a key moves its record to the row with {@code invalidated = true}
 *       and leaves the placeholder. Each transaction locks one key's rows only, always the record first, so
 *       deadlocks are rare (two first misses of a new key on two nodes at once: one inserts, the other meets the
 *       duplicate key); the database's concurrency errors (deadlock victim, lock-wait timeout, duplicate key,
 *       serialization failure) roll the step back and run it again within the call, logged at {@code DEBUG}.</li>
 *   <li><b>The database's clock.</b> Times are milliseconds since the epoch (UTC) by the database's clock
 *       ({@code UTC_TIMESTAMP(6)} on MariaDB and MySQL, {@code CURRENT_TIMESTAMP(6)} on H2), read after the key's
 *       row is locked, never a node's clock.</li>
 *   <li><b>Notices without notifications.</b> The end of a miss and an invalidation are written as a row of
 *       {@code <prefix>compute_notice} in the step's own transaction (so a notice goes out if and only if its step
 *       commits). Each node reads the rows it has not seen once per poll interval, on one thread of the store's
 *       (never a poll per waiter); the core wakes its own node's waiters at once without it. A notice reaches the
 *       other nodes within about one poll interval. Old notices, records and expired values are removed by the same
 *       thread, about once a minute.</li>
 *   <li><b>Keys.</b> A key is stored as its {@link StoredText} in UTF-8 ({@code VARBINARY}: compared byte for byte,
 *       no padding or collation), or, when that is longer than 1,000 bytes, its first 200 characters, U+0001,
 *       {@code 'h'} and the hex SHA-256 of the whole key, as on PostgreSQL.</li>
 * </ul>
 */
final class StatementComputeStore extends SqlComputeStore {

    private static final System.Logger LOG = System.getLogger(StatementComputeStore.class.getName());

    /** How long a notice, a record past its expiry or a value past its stale window stays before it is removed. */
    static final long KEEP_MILLIS = 60_000;

    /** A notice older than this is taken as committed: one younger is read again by the next poll too. */
    static final long SETTLE_MILLIS = 2_000;

    /** How many times a step is run again after the database's concurrency errors, within one call. */
    private static final int ATTEMPTS = 50;

    private static final String RECORD_COLUMNS = "miss_id, turn, computer_id, computer_desc, started_at, hint, ttl_ms,"
            + " state, outcome, class_name, message, expires_at";

    private final String now;
    private final Duration pollInterval;
    private final String value;
    private final String compute;
    private final String notices;
    private volatile int confirmations;
    private ScheduledExecutorService poller;
    private long seenUpTo = -1;
    private final TreeSet<Long> seen = new TreeSet<>();
    private long lastSweep;

    StatementComputeStore(DataSource dataSource, Schema schema, String keyPrefix, int connectionCount,
            int timeoutMillis, Duration pollInterval) {
        super(schema, keyPrefix, new OwnConnections(dataSource, schema.dialect(), connectionCount,
                timeoutMillis), timeoutMillis);
        this.now = now(schema.dialect());
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.value = schema.valueTable();
        this.compute = schema.computeTable();
        this.notices = schema.computeTable() + "_notice";
        connections.prewarm();
    }

    @Override
    int listenerConfirmations() {
        return confirmations;
    }

    @Override
    public byte[] get(String key) {
        return readBytes(() -> "read '" + key + "'", "SELECT stored_value FROM " + value
                + " WHERE value_key = ? AND (expires_at IS NULL OR expires_at > " + now + ")", storedKey(key));
    }

    @Override
    public Entry entry(String key) {
        return call(() -> "read '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT v.stored_value, v.stored_at,"
                    + " v.expires_at, v.backoff_until, n.now_ms FROM " + value + " v, (SELECT " + now + " AS now_ms) n"
                    + " WHERE v.value_key = ? AND (v.expires_at IS NULL OR v.expires_at > n.now_ms"
                    + " OR v.stale_until > n.now_ms)")) {
                statement.setBytes(1, storedKey(key));
                try (ResultSet row = statement.executeQuery()) {
                    if (!row.next()) {
                        return null;
                    }
                    long at = row.getLong(5);
                    long expires = row.getLong(3);
                    boolean stale = !row.wasNull() && expires <= at;
                    long backOff = row.getLong(4);
                    boolean backingOff = !row.wasNull() && backOff > at;
                    return new Entry(row.getBytes(1), Math.max(0, at - row.getLong(2)), stale, backingOff);
                }
            }
        });
    }

    @Override
    public boolean backOff(String key, Duration backOff) {
        return call(() -> "start the error back-off of '" + key + "'", connection -> transaction(connection, () -> {
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + value
                    + " SET backoff_until = " + now + " + ? WHERE value_key = ?"
                    + " AND (backoff_until IS NULL OR backoff_until <= " + now + ")")) {
                statement.setLong(1, Math.max(1, millis(backOff)));
                statement.setBytes(2, storedKey(key));
                return statement.executeUpdate() > 0;
            }
        }));
    }

    @Override
    public boolean discard(String key, byte[] stored) {
        return call(() -> "remove the unreadable value of '" + key + "'", connection -> transaction(connection, () -> {
            Record locked = lock(connection, storedKey(key));
            try (PreparedStatement statement = connection.prepareStatement("SELECT stored_value FROM " + value
                    + " WHERE value_key = ?")) {
                statement.setBytes(1, locked.key());
                try (ResultSet row = statement.executeQuery()) {
                    if (!row.next() || !java.util.Arrays.equals(row.getBytes(1), stored)) {
                        return false;
                    }
                }
            }
            return deleteValue(connection, locked.key()) > 0;
        }));
    }

    @Override
    public byte[] invalidatedValue(String key, String missId) {
        return readBytes(() -> "read the value of '" + key + "'", "SELECT stored_value FROM " + compute
                + " WHERE compute_key = ? AND invalidated = TRUE AND miss_id = ? AND outcome = 'value' AND expires_at > "
                + now, storedKey(key), missId);
    }

    @Override
    public void invalidate(String key, String published) {
        String notice = notice(published);
        call(() -> "invalidate '" + key + "'", connection -> transaction(connection, () -> {
            Record record = lock(connection, storedKey(key));
            long at = now(connection);
            deleteValue(connection, record.key());
            if (!record.computing(at)) {
                return false;
            }
            try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + compute
                    + " WHERE compute_key = ? AND invalidated = TRUE")) {
                statement.setBytes(1, record.key());
                statement.executeUpdate();
            }
            try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + compute
                    + " (compute_key, invalidated, " + RECORD_COLUMNS + ") VALUES (?, TRUE, ?, ?, ?, ?, ?, ?, ?, ?,"
                    + " NULL, NULL, NULL, ?)")) {
                statement.setBytes(1, record.key());
                statement.setString(2, record.miss());
                statement.setInt(3, record.turn());
                statement.setString(4, record.computer());
                statement.setString(5, record.description());
                statement.setLong(6, record.startedAt());
                statement.setString(7, record.hint());
                statement.setLong(8, record.ttlMillis());
                statement.setString(9, record.state());
                statement.setLong(10, record.expiresAt());
                statement.executeUpdate();
            }
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + compute
                    + " SET miss_id = '', state = 'done', outcome = NULL, class_name = NULL, message = NULL,"
                    + " stored_value = NULL, expires_at = 0 WHERE compute_key = ? AND invalidated = FALSE")) {
                statement.setBytes(1, record.key());
                statement.executeUpdate();
            }
            tell(connection, notice, at);
            return true;
        }));
    }

    @Override
    public Claim claim(String key, Claimant claimant, Miss awaited) {
        long refreshMillis = millis(claimant.refreshAfter());
        Claimed claimed = call(() -> "claim the computation of '" + key + "'", connection -> transaction(connection,
                () -> claim(connection, key, claimant, awaited, refreshMillis)));
        if (claimed.claim() != null) {
            return claimed.claim();
        }
        if (claimed.hit() != null) {
            return new Claim.Hit(claimed.hit());
        }
        Record done = claimed.done();
        return switch (done.outcome()) {
            case "failed" -> new Claim.Done(Notice.Outcome.FAILED, null, StoredText.decode(done.className()),
                    StoredText.decode(done.message()));
            case "value" -> new Claim.Done(Notice.Outcome.UNSTORED, done.value(), null, null);
            default -> new Claim.Done(Notice.Outcome.NULL, null, null, null);
        };
    }

    /** What {@link #claim} found in its transaction: a claim as it is, a stored value, or a miss that is done. */
    private record Claimed(Claim claim, byte[] hit, Record done) {
    }

    private Claimed claim(Connection connection, String key, Claimant claimant, Miss awaited, long refreshMillis)
            throws SQLException {
        Record current = lock(connection, storedKey(key));
        long at = now(connection);
        try (PreparedStatement statement = connection.prepareStatement("SELECT stored_value, stored_at FROM " + value
                + " WHERE value_key = ? AND (expires_at IS NULL OR expires_at > ?)")) {
            statement.setBytes(1, current.key());
            statement.setLong(2, at);
            try (ResultSet row = statement.executeQuery()) {
                if (row.next() && (refreshMillis <= 0 || row.getLong(2) > at - refreshMillis)) {
                    return new Claimed(null, row.getBytes(1), null);
                }
            }
        }
        Record waitFor = null;
        if (awaited != null) {
            Record invalidated = invalidated(connection, current.key());
            if (invalidated != null && invalidated.expiresAt() > at && invalidated.miss().equals(awaited.id())) {
                if (!"computing".equals(invalidated.state())) {
                    return new Claimed(null, null, invalidated);
                }
                waitFor = invalidated;
            }
        }
        String miss = claimant.newMiss();
        int turn = 0;
        String hint = StoredText.encode(claimant.hint());
        long ttlMillis = millis(claimant.ttl());
        if (waitFor == null) {
            if (current.expiresAt() > at) {
                if (current.computing(at) && current.computer().equals(claimant.computer())) {
                    // this very claim, made again after its answer was lost with its connection: it computes
                    return new Claimed(current.compute(), null, null);
                } else if (current.computing(at)) {
                    waitFor = current;
                } else if (awaited != null && current.miss().equals(awaited.id())
                        && (!"value".equals(current.outcome()) || current.value() != null)) {
                    return new Claimed(null, null, current); // a short-lived value, expired, is kept in the record
                }
                // done, and its value is gone (expired, invalidated) or it is not the miss the caller waited for
            } else if (awaited != null) {
                // the computer of the awaited miss timed out: the caller takes its turn, with the miss's first hint
                miss = awaited.id();
                turn = awaited.turn() + 1;
                hint = StoredText.encode(awaited.hint());
                ttlMillis = awaited.ttlMillis();
            }
        }
        if (waitFor != null) {
            return new Claimed(new Claim.Wait(waitFor.asMiss(), Math.max(0, waitFor.expiresAt() - at),
                    StoredText.decode(waitFor.description()), Instant.ofEpochMilli(waitFor.startedAt())), null, null);
        }
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + compute + " SET miss_id = ?,"
                + " turn = ?, computer_id = ?, computer_desc = ?, started_at = ?, hint = ?, ttl_ms = ?,"
                + " state = 'computing', outcome = NULL, class_name = NULL, message = NULL, stored_value = NULL,"
                + " expires_at = ? WHERE compute_key = ? AND invalidated = FALSE")) {
            statement.setString(1, miss);
            statement.setInt(2, turn);
            statement.setString(3, claimant.computer());
            statement.setString(4, StoredText.encode(claimant.description()));
            statement.setLong(5, at);
            statement.setString(6, hint);
            statement.setLong(7, ttlMillis);
            statement.setLong(8, at + Math.max(1, millis(claimant.computeTimeout())));
            statement.setBytes(9, current.key());
            statement.executeUpdate();
        }
        Miss taken = new Miss(miss, turn, StoredText.decode(hint), ttlMillis);
        return new Claimed(new Claim.Compute(taken, new Ticket(miss, turn, claimant.computer())), null, null);
    }

    @Override
    boolean settle(Connection connection, Settlement completion) throws SQLException {
        String outcome = completion.value() == null ? "null" : "value";
        long grace = DONE_GRACE.toMillis();
        return transaction(connection, () -> {
            Record record = lock(connection, bytes(completion.key()));
            long at = now(connection);
            if (record.computing(at) && record.miss().equals(completion.ticket().miss())) {
                long ttlMillis = completion.ttlMillis() < 0 ? record.ttlMillis() : completion.ttlMillis();
                boolean kept = completion.value() != null && ttlMillis > 0 && ttlMillis < grace;
                try (PreparedStatement statement = connection.prepareStatement("UPDATE " + compute
                        + " SET state = 'done', outcome = ?, stored_value = ?, expires_at = ? WHERE compute_key = ?"
                        + " AND invalidated = FALSE")) {
                    statement.setString(1, outcome);
                    if (kept) { // for a waiter that reads it only after it expired
                        statement.setBytes(2, completion.value());
                    } else {
                        statement.setNull(2, Types.VARBINARY);
                    }
                    statement.setLong(3, at + grace);
                    statement.setBytes(4, record.key());
                    statement.executeUpdate();
                }
                if (completion.value() != null) {
                    store(connection, record.key(), completion.value(), at, ttlMillis, completion.staleMillis());
                }
                tell(connection, completion.notice(), at);
                return true;
            }
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + compute
                    + " SET state = 'done', outcome = ?, stored_value = ?, expires_at = ? WHERE compute_key = ?"
                    + " AND invalidated = TRUE AND miss_id = ? AND state = 'computing' AND expires_at > ?")) {
                statement.setString(1, outcome);
                if (completion.value() == null) {
                    statement.setNull(2, Types.VARBINARY);
                } else {
                    statement.setBytes(2, completion.value());
                }
                statement.setLong(3, at + grace);
                statement.setBytes(4, record.key());
                statement.setString(5, completion.ticket().miss());
                statement.setLong(6, at);
                if (statement.executeUpdate() == 0) {
                    return false;
                }
            }
            tell(connection, completion.unstored(), at);
            return true;
        });
    }

    /** Writes the key's value (its write time {@code at}), ending its back-off; the key's record row is locked. */
    private void store(Connection connection, byte[] storedKey, byte[] serialized, long at, long ttlMillis,
            long staleMillis) throws SQLException {
        Long expires = ttlMillis > 0 ? at + ttlMillis : null;
        Long staleUntil = ttlMillis > 0 && staleMillis > 0 ? at + ttlMillis + staleMillis : null;
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + value + " SET stored_value = ?,"
                + " stored_at = ?, expires_at = ?, stale_until = ?, backoff_until = NULL WHERE value_key = ?")) {
            statement.setBytes(1, serialized);
            statement.setLong(2, at);
            setLong(statement, 3, expires);
            setLong(statement, 4, staleUntil);
            statement.setBytes(5, storedKey);
            if (statement.executeUpdate() > 0) {
                return;
            }
        }
        try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + value
                + " (value_key, stored_value, stored_at, expires_at, stale_until, backoff_until)"
                + " VALUES (?, ?, ?, ?, ?, NULL)")) {
            statement.setBytes(1, storedKey);
            statement.setBytes(2, serialized);
            statement.setLong(3, at);
            setLong(statement, 4, expires);
            setLong(statement, 5, staleUntil);
            statement.executeUpdate();
        }
    }

    @Override
    public boolean fail(String key, Ticket ticket, String className, String message, String published) {
        String notice = notice(published);
        return call(() -> "record the failure of '" + key + "'", connection -> transaction(connection, () -> {
            Record record = lock(connection, storedKey(key));
            long at = now(connection);
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + compute
                    + " SET state = 'done', outcome = 'failed', class_name = ?, message = ?, expires_at = ?"
                    + " WHERE compute_key = ? AND miss_id = ? AND computer_id = ? AND state = 'computing'"
                    + " AND expires_at > ?")) {
                statement.setString(1, StoredText.encode(className));
                statement.setString(2, StoredText.encode(message));
                statement.setLong(3, at + DONE_GRACE.toMillis());
                statement.setBytes(4, record.key());
                statement.setString(5, ticket.miss());
                statement.setString(6, ticket.computer());
                statement.setLong(7, at);
                if (statement.executeUpdate() == 0) {
                    return false;
                }
            }
            tell(connection, notice, at);
            return true;
        }));
    }

    /**
     * Reads the notices of every node once per poll interval, on a thread of the store's (the database need not be
     * up yet: a poll that fails is made again at the next interval).
     */
    @Override
    public synchronized void subscribe(Listener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        if (poller != null) {
            throw new IllegalStateException("this JDBC compute store already polls (one subscription per cache)");
        }
        poller = Executors.newSingleThreadScheduledExecutor(Daemons.named("locks-jdbc-compute-notices"));
        long every = Math.max(1, pollInterval.toMillis());
        poller.scheduleWithFixedDelay(this::poll, 0, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.shutdownNow();
            poller = null;
        }
        connections.close();
    }

    /**
     * One look at the notices table: every notice not seen yet, in order. The first look only learns where the table
     * ends. Notices are numbered as they are written, but a transaction may commit after a later one: past a gap in
     * the numbers (a notice not committed yet, or rolled back) the notices are read again by every poll until they
     * are {@value #SETTLE_MILLIS} ms old (those seen are not handed on twice); without a gap each is read once.
     */
    private void poll() {
        try {
            connections.run(connection -> {
                if (seenUpTo < 0) {
                    try (PreparedStatement statement = connection.prepareStatement(
                            "SELECT COALESCE(MAX(notice_id), 0) FROM " + notices);
                            ResultSet row = statement.executeQuery()) {
                        row.next();
                        seenUpTo = row.getLong(1);
                    }
                    confirmations++;
                    return null;
                }
                try (PreparedStatement statement = connection.prepareStatement("SELECT n.notice_id, n.payload,"
                        + " n.created_at, t.now_ms FROM " + notices + " n, (SELECT " + now + " AS now_ms) t"
                        + " WHERE n.notice_id > ? ORDER BY n.notice_id")) {
                    statement.setLong(1, seenUpTo);
                    try (ResultSet rows = statement.executeQuery()) {
                        boolean settled = true;
                        long next = seenUpTo + 1;
                        while (rows.next()) {
                            long id = rows.getLong(1);
                            if (seen.add(id)) {
                                noticed(rows.getString(2));
                            }
                            settled &= id == next || rows.getLong(3) < rows.getLong(4) - SETTLE_MILLIS;
                            if (settled) {
                                seenUpTo = id;
                                seen.headSet(id, true).clear();
                            }
                            next = id + 1;
                        }
                    }
                }
                sweep(connection);
                return null;
            });
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "could not read the compute cache's notices (" + notices + "), again in "
                    + pollInterval.toMillis() + " ms: " + e.getMessage(), e);
        }
    }

    /**
     * About once a minute: removes the notices, the records and the values (past their stale window) that expired more
     * than {@value #KEEP_MILLIS} ms ago. A step that meets one of these deletes (a lock wait, a deadlock) runs again;
     * a delete that fails is tried again a minute later.
     */
    private void sweep(Connection connection) throws SQLException {
        long nanos = System.nanoTime();
        if (lastSweep != 0 && nanos - lastSweep < TimeUnit.MILLISECONDS.toNanos(KEEP_MILLIS)) {
            return;
        }
        lastSweep = nanos;
        long before = now(connection) - KEEP_MILLIS;
        // each a transaction of its own (auto-commit), so that no row stays locked longer than its statement
        for (String sql : new String[] {"DELETE FROM " + notices + " WHERE created_at < ?",
                "DELETE FROM " + compute + " WHERE expires_at < ?",
                "DELETE FROM " + value + " WHERE expires_at < ? AND (stale_until IS NULL OR stale_until < ?)"}) {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setLong(1, before);
                if (sql.indexOf('?') != sql.lastIndexOf('?')) {
                    statement.setLong(2, before);
                }
                statement.executeUpdate();
            }
        }
    }

    /** Writes a notice in the step's transaction: other nodes read it once it commits. */
    private void tell(Connection connection, String notice, long at) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + notices
                + " (created_at, payload) VALUES (?, ?)")) {
            statement.setLong(1, at);
            statement.setString(2, notice);
            statement.executeUpdate();
        }
    }

    private int deleteValue(Connection connection, byte[] storedKey) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + value
                + " WHERE value_key = ?")) {
            statement.setBytes(1, storedKey);
            return statement.executeUpdate();
        }
    }

    /**
     * Locks the key's record row, inserting it (an expired placeholder, which counts as absent) the first time: the
     * record as it is. A concurrent first insert makes the step run again (a duplicate key).
     */
    private Record lock(Connection connection, byte[] storedKey) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT " + RECORD_COLUMNS
                + ", stored_value FROM " + compute + " WHERE compute_key = ? AND invalidated = FALSE FOR UPDATE")) {
            statement.setBytes(1, storedKey);
            try (ResultSet row = statement.executeQuery()) {
                if (row.next()) {
                    return Record.of(storedKey, row);
                }
            }
        }
        try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + compute
                + " (compute_key, invalidated, " + RECORD_COLUMNS + ") VALUES (?, FALSE, '', 0, '', '', 0, '', 0,"
                + " 'done', NULL, NULL, NULL, 0)")) {
            statement.setBytes(1, storedKey);
            statement.executeUpdate();
        }
        return new Record(storedKey, "", 0, "", "", 0, "", 0, "done", null, null, null, 0, null);
    }

    /** The key's invalidated miss, or null; the key's record row is locked. */
    private Record invalidated(Connection connection, byte[] storedKey) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT " + RECORD_COLUMNS
                + ", stored_value FROM " + compute + " WHERE compute_key = ? AND invalidated = TRUE")) {
            statement.setBytes(1, storedKey);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Record.of(storedKey, row) : null;
            }
        }
    }

    /** The database's clock now in milliseconds since the epoch (UTC), as an SQL expression of the dialect. */
    static String now(Dialect dialect) {
        return dialect == Dialect.H2
                ? "DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(6))"
                : "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
    }

    /** The database's clock now, in milliseconds since the epoch. */
    private long now(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT " + now);
                ResultSet row = statement.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    /** A step of its own. */
    @FunctionalInterface
    private interface Step<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code step} in a transaction of its own and commits it; rolls it back and runs it again after the
     * database's concurrency errors ({@link StatementLockStore#concurrencyError}), logged at {@code DEBUG} only.
     */
    private static <T> T transaction(Connection connection, Step<T> step) throws SQLException {
        // The caller's interrupt status is kept aside while the statements run (as the lock store does): H2 waits for
        // row locks in ways that swallow it, and the step must run the same whatever it is (SPI).
        boolean interrupted = Thread.interrupted();
        connection.setAutoCommit(false);
        try {
            for (int attempt = 1;; attempt++) {
                try {
                    T result = step.run();
                    connection.commit();
                    return result;
                } catch (SQLException e) {
                    rollback(connection, e);
                    if (!StatementLockStore.concurrencyError(e) || attempt == ATTEMPTS) {
                        throw e;
                    }
                    int tried = attempt;
                    LOG.log(Level.DEBUG, () -> "compute cache step ran into a concurrent one (" + e.getSQLState() + " "
                            + e.getErrorCode() + ": " + e.getMessage() + "), running it again (attempt " + (tried + 1)
                            + ")");
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100L * attempt));
                }
            }
        } finally {
            try {
                connection.setAutoCommit(true);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static void rollback(Connection connection, SQLException failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private static void setLong(PreparedStatement statement, int index, Long value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, value);
        }
    }

    /**
     * The key as stored: its {@link StoredText} with the key prefix, in UTF-8; past 1,000 bytes its first 200
     * characters, U+0001, {@code 'h'} and the hex SHA-256 of the whole (a short stored key never holds U+0001 'h').
     */
    byte[] storedKey(String key) {
        return bytes(stored(key));
    }

    /** A key as stored ({@link #stored}), as the key columns hold it: see {@link #storedKey}. */
    static byte[] bytes(String stored) {
        byte[] bytes = stored.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= 1000) {
            return bytes;
        }
        try {
            String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            String start = stored.substring(0, stored.offsetByCodePoints(0, 200));
            return (start + StoredText.ESCAPE + 'h' + digest).getBytes(StandardCharsets.UTF_8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A record row of the compute table, its text as stored. */
    private record Record(byte[] key, String miss, int turn, String computer, String description, long startedAt,
            String hint, long ttlMillis, String state, String outcome, String className, String message,
            long expiresAt, byte[] value) {

        static Record of(byte[] key, ResultSet row) throws SQLException {
            return new Record(key, row.getString(1), row.getInt(2), row.getString(3), row.getString(4),
                    row.getLong(5), row.getString(6), row.getLong(7), row.getString(8), row.getString(9),
                    row.getString(10), row.getString(11), row.getLong(12), row.getBytes(13));
        }

        boolean computing(long at) {
            return "computing".equals(state) && expiresAt > at;
        }

        /** The miss, as a waiter sees it. */
        Miss asMiss() {
            return new Miss(miss, turn, StoredText.decode(hint), ttlMillis);
        }

        /** This computer's claim, made again. */
        Claim compute() {
            Miss taken = asMiss();
            return new Claim.Compute(taken, new Ticket(miss, turn, computer));
        }
    }
}
