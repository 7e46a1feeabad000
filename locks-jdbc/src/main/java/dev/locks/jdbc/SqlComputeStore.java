package dev.locks.jdbc;

import dev.locks.LockUnavailableException;
import dev.locks.spi.RemoteComputeStore;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the JDBC {@link RemoteComputeStore}s of every dialect share: the key as stored (key prefix, {@link StoredText}),
 * the cache's own connections, notices as stored or sent (the core's, behind the key prefix, for the node's listener),
 * and failures as {@link LockUnavailableException}. Values are the core's bytes, stored as they are. The subclasses
 * hold the statements: {@link JdbcComputeStore} the functions of PostgreSQL, {@link StatementComputeStore} plain
 * statements for the databases without stored routines or notifications.
 */
abstract class SqlComputeStore implements RemoteComputeStore {

    /** How long the record of a miss that is done stays. */
    static final Duration DONE_GRACE = Duration.ofSeconds(5);

    /**
     * PostgreSQL's limit on a notice's payload (bytes in the server's encoding; UTF-8 assumed): a refused notice would
     * undo the step it tells of. The databases without notifications keep notices in rows, cut alike.
     */
    static final int MAX_NOTICE_BYTES = 8000;

    /** The longest TTL or compute timeout written (100 years): beyond, the database's timestamps overflow. */
    private static final long MAX_MILLIS = Duration.ofDays(36_525).toMillis();

    final Schema schema;
    final String keyPrefix;
    final OwnConnections connections;
    final int timeoutMillis;
    volatile Listener listener;
    /** The key prefix as it leads every notice of this store: other prefixes share the channel and the tables. */
    private final String noticePrefix;

    SqlComputeStore(Schema schema, String keyPrefix, OwnConnections connections, int timeoutMillis) {
        this.schema = schema;
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
        this.connections = connections;
        this.timeoutMillis = timeoutMillis;
        this.noticePrefix = keyPrefix.length() + ":" + keyPrefix;
    }

    /** The cache's own connections (tests). */
    OwnConnections connections() {
        return connections;
    }

    /**
     * How many times this store began hearing of other nodes' notices (tests): its listening connection listened,
     * or its poller made its first look; 0 before.
     */
    abstract int listenerConfirmations();

    /** Within PostgreSQL's limit, the key prefix and some room aside (the core counts the escapes of StoredText). */
    @Override
    public final int maxNoticeBytes() {
        return MAX_NOTICE_BYTES - 100 - StoredText.encode(noticePrefix).getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public final boolean complete(String key, Ticket ticket, RemoteComputeStore.Completion completion) {
        long staleMillis = completion.fresh() ? millis(completion.staleIfError()) : -1L;
        Settlement settlement = new Settlement(stored(key), ticket, completion.value(),
                completion.ttl() == null ? -1 : millis(completion.ttl()), staleMillis, notice(completion.notice()),
                notice(completion.unstoredNotice()));
        return call(() -> "store the value of '" + key + "'", connection -> settle(connection, settlement));
    }

    /**
     * A completion of a miss, as {@link #settle} writes it.
     *
     * @param key the key as stored ({@link #stored})
     * @param value the value's bytes; {@code null} for a {@code null} result
     * @param ttlMillis the TTL to store it with; -1: the TTL the miss began with
     * @param staleMillis how long it stays readable as stale after its TTL (0: not at all; -1: a plain completion,
     *        keeping no write time)
     * @param notice what to publish when it settles the miss, as stored or sent ({@link #notice})
     * @param unstored what to publish when it settles the key's invalidated miss (storing nothing)
     */
    record Settlement(String key, Ticket ticket, byte[] value, long ttlMillis, long staleMillis, String notice,
            String unstored) {
    }

    /**
     * In one transaction on {@code connection}: {@link #complete}'s step.
     *
     * @return whether the completion settled the miss
     */
    abstract boolean settle(java.sql.Connection connection, Settlement settlement) throws java.sql.SQLException;

    /**
     * The core's notice as stored or sent: behind this store's key prefix (framed as {@code <length>:<prefix>}),
     * in {@link StoredText}.
     */
    final String notice(String notice) {
        return StoredText.encode(noticePrefix + notice);
    }

    /** A notice as stored or sent ({@link #notice}): handed to the listener if it is of this store's key prefix. */
    final void noticed(String payload) {
        String text = StoredText.decode(payload);
        Listener heard = listener;
        if (heard != null && text != null && text.startsWith(noticePrefix)) {
            heard.noticed(text.substring(noticePrefix.length()));
        }
    }

    /** The key as stored: with the key prefix, in {@link StoredText}. */
    final String stored(String key) {
        return StoredText.encode(keyPrefix + key);
    }

    /**
     * The bytes in the first column of the first row that {@code sql} selects, its parameters bound in order (bytes
     * or text), or {@code null}: one read on the cache's own connections.
     */
    final byte[] readBytes(Supplier<String> what, String sql, Object... parameters) {
        return call(what, connection -> {
            try (java.sql.PreparedStatement statement = connection.prepareStatement(sql)) {
                for (int i = 0; i < parameters.length; i++) {
                    if (parameters[i] instanceof byte[] bytes) {
                        statement.setBytes(i + 1, bytes);
                    } else {
                        statement.setString(i + 1, (String) parameters[i]);
                    }
                }
                try (java.sql.ResultSet row = statement.executeQuery()) {
                    return row.next() ? row.getBytes(1) : null;
                }
            }
        });
    }

    final <T> T call(Supplier<String> what, OwnConnections.Call<T> call) {
        try {
            return connections.run(call);
        } catch (java.sql.SQLException e) {
            throw new LockUnavailableException("JDBC compute cache (table " + schema.valueTable() + ") could not "
                    + what.get() + ": " + e.getMessage() + " (is the database reachable, and its schema in place? see "
                    + schema.scriptPath() + ")", e);
        }
    }

    /** Whole milliseconds, rounded up so that a positive duration never becomes 0; at most 100 years. */
    static long millis(Duration duration) {
        try {
            return Math.min(MAX_MILLIS, duration.plusNanos(999_999).toMillis());
        } catch (ArithmeticException tooLong) {
            return MAX_MILLIS;
        }
    }
}
