package dev.locks.jdbc;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The {@link RemoteComputeStore} on PostgreSQL: values in {@code <prefix>value}, the records of misses in
 * {@code <prefix>compute}, written only by the functions of the shipped schema ({@value Schema#SCRIPT}) on
 * connections of the cache's own ({@link OwnConnections}, never the caller's transaction), each step one
 * statement in a transaction of its own, atomic per key (the functions take the key's advisory lock). Every
 * expiry and timestamp is the database's ({@code clock_timestamp()}).
 *
 * <p>Round trips: one per method. Notices go out with the step that sends them ({@code pg_notify} in its
 * transaction, delivered on commit) on the channel {@code <prefix>computed}, and come in on the node's one
 * listening connection ({@link NodeListener}), which the lock registries on the same data source share.
 */
final class JdbcComputeStore extends SqlComputeStore {

    private static final System.Logger LOG = System.getLogger(JdbcComputeStore.class.getName());

    private final DataSource dataSource;
    private final String getSql;
    private final String discardSql;
    private final String invalidatedSql;
    private final String claimSql;
    private final String completeSql;
    private final String failSql;
    private final String invalidateSql;
    private final String readSql;
    private final String backOffSql;
    private NodeListener.Subscription subscription;

    /** @param keyPrefix the start of every key as stored ({@code ""} for none): a namespace within the tables */
    JdbcComputeStore(DataSource dataSource, Schema schema, String keyPrefix, int connectionCount, int timeoutMillis) {
        super(schema, keyPrefix, new OwnConnections(dataSource, connectionCount, timeoutMillis), timeoutMillis);
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        String key = schema.function("key") + "(?)"; // a long key is stored under its digest
        this.getSql = "SELECT value FROM " + schema.valueTable()
                + " WHERE value_key = " + key + " AND (expires_at IS NULL OR expires_at > clock_timestamp())";
        this.discardSql = "DELETE FROM " + schema.valueTable() + " WHERE value_key = " + key + " AND value = ?";
        this.invalidatedSql = "SELECT value FROM " + schema.computeTable() + " WHERE compute_key = " + key
                + " AND invalidated"
                + " AND miss_id = ? AND outcome = 'value' AND expires_at > clock_timestamp()";
        this.claimSql = "SELECT o_kind, o_value, o_miss, o_turn, o_hint, o_ttl_ms, o_left_ms, o_computer, o_started_at,"
                + " o_outcome, o_class, o_message FROM " + schema.function("compute_claim")
                + "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        this.completeSql = "SELECT " + schema.function("compute_complete") + "(?, ?, ?, ?, ?, ?, ?, ?, ?)";
        this.readSql = "SELECT o_value, o_age_ms, o_stale, o_backing_off FROM " + schema.function("compute_read")
                + "(?)";
        this.backOffSql = "SELECT " + schema.function("compute_back_off") + "(?, ?)";
        this.failSql = "SELECT " + schema.function("compute_fail") + "(?, ?, ?, ?, ?, ?, ?)";
        this.invalidateSql = "SELECT " + schema.function("compute_invalidate") + "(?, ?)";
        connections.prewarm();
    }

    /** How many times the node's listening connection began listening for this store (tests); 0 without one. */
    @Override
    synchronized int listenerConfirmations() {
        return subscription == null ? 0 : subscription.confirmations();
    }

    @Override
    public byte[] get(String key) {
        return readBytes(() -> "read '" + key + "'", getSql, stored(key));
    }

    @Override
    public void invalidate(String key, String notice) {
        call(() -> "invalidate '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(invalidateSql)) {
                statement.setString(1, stored(key));
                statement.setString(2, notice(notice));
                return single(statement).getBoolean(1);
            }
        });
    }

    @Override
    public byte[] invalidatedValue(String key, String missId) {
        return readBytes(() -> "read the value of '" + key + "'", invalidatedSql, stored(key), missId);
    }

    @Override
    public Claim claim(String key, Claimant claimant, Miss awaited) {
        ClaimRow row = call(() -> "claim the computation of '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(claimSql)) {
                statement.setString(1, stored(key));
                statement.setString(2, claimant.computer());
                statement.setString(3, StoredText.encode(claimant.description()));
                statement.setLong(4, Math.max(1, millis(claimant.computeTimeout())));
                statement.setString(5, claimant.newMiss());
                statement.setString(6, StoredText.encode(claimant.hint()));
                statement.setLong(7, millis(claimant.ttl()));
                statement.setString(8, awaited == null ? "" : awaited.id());
                statement.setInt(9, awaited == null ? 0 : awaited.turn());
                statement.setString(10, awaited == null ? "" : StoredText.encode(awaited.hint()));
                statement.setLong(11, awaited == null ? 0 : awaited.ttlMillis());
                statement.setLong(12, millis(claimant.refreshAfter()));
                return ClaimRow.of(single(statement));
            }
        });
        return switch (row.kind()) {
            case "hit" -> new Claim.Hit(row.value());
            case "compute" -> new Claim.Compute(row.miss(), new Ticket(row.miss().id(), row.miss().turn(),
                    claimant.computer()));
            case "wait" -> new Claim.Wait(row.miss(), row.leftMillis(), row.computer(), row.startedAt().toInstant());
            case "done" -> switch (row.outcome()) {
                case "failed" -> new Claim.Done(Notice.Outcome.FAILED, null, row.className(), row.message());
                case "value" -> new Claim.Done(Notice.Outcome.UNSTORED, row.value(), null, null);
                default -> new Claim.Done(Notice.Outcome.NULL, null, null, null);
            };
            default -> throw new IllegalStateException(schema.function("compute_claim") + " answered " + row.kind());
        };
    }

    /**
     * The value with its age, or its stale value, and whether the key backs off: one call of
     * {@code locks_compute_read}.
     */
    @Override
    public Entry entry(String key) {
        return call(() -> "read '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(readSql)) {
                statement.setString(1, stored(key));
                try (ResultSet row = statement.executeQuery()) {
                    return row.next() ? new Entry(row.getBytes(1), row.getLong(2), row.getBoolean(3), row.getBoolean(4))
                            : null;
                }
            }
        });
    }

    /** The key's error back-off: one call of {@code locks_compute_back_off}, false when the key has no value. */
    @Override
    public boolean backOff(String key, Duration backOff) {
        return call(() -> "start the error back-off of '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(backOffSql)) {
                statement.setString(1, stored(key));
                statement.setLong(2, Math.max(1, millis(backOff)));
                return single(statement).getBoolean(1);
            }
        });
    }

    @Override
    boolean settle(Connection connection, Settlement completion) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(completeSql)) {
            statement.setString(1, completion.key());
            statement.setString(2, completion.ticket().miss());
            statement.setString(3, completion.value() == null ? "null" : "value");
            if (completion.value() == null) {
                statement.setNull(4, Types.BINARY);
            } else {
                statement.setBytes(4, completion.value());
            }
            statement.setLong(5, completion.ttlMillis());
            statement.setLong(6, DONE_GRACE.toMillis());
            statement.setString(7, completion.notice());
            statement.setString(8, completion.unstored());
            statement.setLong(9, completion.staleMillis());
            return single(statement).getInt(1) > 0;
        }
    }

    @Override
    public boolean fail(String key, Ticket ticket, String className, String message, String notice) {
        return call(() -> "record the failure of '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(failSql)) {
                statement.setString(1, stored(key));
                statement.setString(2, ticket.miss());
                statement.setString(3, ticket.computer());
                statement.setString(4, StoredText.encode(className));
                statement.setString(5, StoredText.encode(message));
                statement.setLong(6, DONE_GRACE.toMillis());
                statement.setString(7, notice(notice));
                return single(statement).getBoolean(1);
            }
        });
    }

    /**
     * Listens on the channel {@code <prefix>computed} on the node's listening connection (the database need not be
     * up yet). Without the PostgreSQL driver nobody can listen: waiters poll.
     */
    @Override
    public synchronized void subscribe(Listener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        if (subscription != null) {
            throw new IllegalStateException("this JDBC compute store already listens (one subscription per cache)");
        }
        if (!NodeListener.driverPresent()) {
            LOG.log(Level.WARNING, "the PostgreSQL driver (org.postgresql:postgresql) is not on the classpath:"
                    + " compute cache waiters poll instead of listening for computed values");
            return;
        }
        subscription = NodeListener.listen(dataSource, timeoutMillis, schema.computeChannel(), this::noticed,
                () -> { }, connections::discardIdle); // notices missed meanwhile: waiters poll by themselves
    }

    @Override
    public synchronized void close() {
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
        connections.close();
    }

    @Override
    public boolean discard(String key, byte[] stored) {
        return call(() -> "remove the unreadable value of '" + key + "'", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(discardSql)) {
                statement.setString(1, stored(key));
                statement.setBytes(2, stored);
                return statement.executeUpdate() > 0;
            }
        });
    }

    private static ResultSet single(PreparedStatement statement) throws SQLException {
        ResultSet result = statement.executeQuery();
        if (!result.next()) {
            throw new SQLException("no row from " + statement);
        }
        return result;
    }

    /** The row {@code compute_claim} answered. */
    private record ClaimRow(String kind, byte[] value, Miss miss, long leftMillis, String computer,
            OffsetDateTime startedAt, String outcome, String className, String message) {

        static ClaimRow of(ResultSet row) throws SQLException {
            String missId = row.getString(3);
            Miss miss = missId == null ? null
                    : new Miss(missId, row.getInt(4), StoredText.decode(row.getString(5)), row.getLong(6));
            return new ClaimRow(row.getString(1), row.getBytes(2), miss, row.getLong(7),
                    StoredText.decode(row.getString(8)), row.getObject(9, OffsetDateTime.class), row.getString(10),
                    StoredText.decode(row.getString(11)), StoredText.decode(row.getString(12)));
        }
    }
}
