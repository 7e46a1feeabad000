package dev.locks.jdbc;

import dev.locks.LockUnavailableException;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.ValueSerializer;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the JDBC {@link RemoteComputeStore}s of every dialect share: the key as stored (key prefix, {@link StoredText}),
 * the cache's own connections, reading values through the serializer (an unreadable value is a miss, removed and
 * reported), notices decoded for the node's listener, and failures as {@link LockUnavailableException}. The
 * subclasses hold the statements: {@link JdbcComputeStore} the functions of PostgreSQL, {@link StatementComputeStore}
 * plain statements for the databases without stored routines or notifications.
 */
abstract class SqlComputeStore implements RemoteComputeStore {

    /** How long the record of a miss that is done stays. */
    static final Duration DONE_GRACE = Duration.ofSeconds(5);

    /** The longest TTL or compute timeout written (100 years): beyond, the database's timestamps overflow. */
    private static final long MAX_MILLIS = Duration.ofDays(36_525).toMillis();

    final Schema schema;
    final String keyPrefix;
    final ValueSerializer serializer;
    final OwnConnections connections;
    final int timeoutMillis;
    volatile Listener listener;

    SqlComputeStore(Schema schema, String keyPrefix, ValueSerializer serializer, OwnConnections connections,
            int timeoutMillis) {
        this.schema = schema;
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.connections = connections;
        this.timeoutMillis = timeoutMillis;
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

    @Override
    public final boolean complete(String node, String key, Ticket ticket, Object value, Duration ttl) {
        return complete(node, key, ticket, value, ttl, -1L);
    }

    @Override
    public final boolean complete(String node, String key, Ticket ticket, Object value, Duration ttl,
            Duration staleIfError) {
        return complete(node, key, ticket, value, ttl, millis(staleIfError));
    }

    private boolean complete(String node, String key, Ticket ticket, Object value, Duration ttl, long staleMillis) {
        byte[] serialized = value == null ? null : serializer.serialize(value); // its exception as it is
        boolean nothing = value == null;
        Completion completion = new Completion(stored(key), ticket, serialized, ttl == null ? -1 : millis(ttl),
                staleMillis, ComputeNotices.encode(Notice.completed(node, key, ticket.miss(), nothing), stored(key)),
                ComputeNotices.encode(Notice.completedInvalidated(node, key, ticket.miss(), nothing), stored(key)));
        return call(() -> "store the value of '" + key + "'", connection -> settle(connection, completion));
    }

    /**
     * A completion of a miss, as {@link #settle} writes it.
     *
     * @param key the key as stored ({@link #stored})
     * @param value the serialized value; {@code null} for a {@code null} result
     * @param ttlMillis the TTL to store it with; -1: the TTL the miss began with
     * @param staleMillis how long it stays readable as stale after its TTL (0 or -1: not at all)
     * @param notice what to publish when it settles the miss
     * @param unstored what to publish when it settles the key's invalidated miss (storing nothing)
     */
    record Completion(String key, Ticket ticket, byte[] value, long ttlMillis, long staleMillis, String notice,
            String unstored) {
    }

    /**
     * In one transaction on {@code connection}: {@link #complete(String, String, Ticket, Object, Duration)}'s step.
     *
     * @return whether the completion settled the miss
     */
    abstract boolean settle(java.sql.Connection connection, Completion completion) throws java.sql.SQLException;

    /** Removes the value of {@code key} if it is still {@code stored} (a value that could not be read). */
    abstract void discard(String key, byte[] stored);

    /** A notice's payload as stored or sent ({@link ComputeNotices}), handed to the listener if it is one. */
    final void noticed(String payload) {
        Notice notice = ComputeNotices.decode(payload);
        String key = notice == null ? null : StoredText.decode(notice.key());
        Listener heard = listener;
        if (heard != null && key != null && key.startsWith(keyPrefix) && key.length() > keyPrefix.length()) {
            heard.noticed(new Notice(notice.node(), key.substring(keyPrefix.length()), notice.miss(),
                    notice.outcome(), StoredText.decode(notice.className()), StoredText.decode(notice.message())));
        }
    }

    /** The notice of a failure as stored or sent: its class name and message in {@link StoredText}. */
    final String failedNotice(Notice failed, String key) {
        return ComputeNotices.encode(new Notice(failed.node(), key, failed.miss(), failed.outcome(),
                StoredText.encode(failed.className()), StoredText.encode(failed.message())), stored(key));
    }

    /** {@code entry} as read, its value still the stored bytes: read, or {@code null} if it cannot be. */
    final Entry readable(String key, Entry entry) {
        if (entry == null) {
            return null;
        }
        byte[] stored = (byte[]) entry.value();
        Object value = entry.stale() ? deserialize(key, stored) : readable(key, stored);
        return value == null ? null : new Entry(value, entry.ageMillis(), entry.stale(), entry.backingOff());
    }

    /** {@code stored}, read; or, if it cannot be read, {@code null} once it is removed and reported. */
    final Object readable(String key, byte[] stored) {
        Object value = deserialize(key, stored);
        if (value == null) {
            discard(key, stored);
        }
        return value;
    }

    /** {@code stored}, read; {@code null}, reported, if it cannot be (never an exception: it is a miss). */
    final Object deserialize(String key, byte[] stored) {
        try {
            return serializer.deserialize(stored);
        } catch (RuntimeException e) {
            Listener heard = listener;
            if (heard != null) {
                heard.unreadable(key, e);
            }
            return null;
        }
    }

    /** The key as stored: with the key prefix, in {@link StoredText}. */
    final String stored(String key) {
        return StoredText.encode(keyPrefix + key);
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
