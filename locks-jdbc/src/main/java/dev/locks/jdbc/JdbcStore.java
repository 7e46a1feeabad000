package dev.locks.jdbc;

import dev.locks.spi.RemoteLockStore;
import java.util.List;

/**
 * What the registry and its tests need of a JDBC lock store besides {@link RemoteLockStore}: on PostgreSQL
 * {@link JdbcLockStore} (the schema's functions, {@code LISTEN/NOTIFY}), elsewhere {@link StatementLockStore}
 * (plain statements, releases polled).
 */
interface JdbcStore extends RemoteLockStore {

    @Override
    default Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis) {
        return tryAcquire(keys, owner, leaseMillis, null);
    }

    @Override
    default Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket) {
        return tryAcquire(keys, owner, leaseMillis, ticket, UNBOUNDED_WAIT);
    }

    @Override
    Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket, long waitNanos);

    @Override
    default long enqueue(List<String> keys, Ticket ticket) {
        return enqueue(keys, ticket, UNBOUNDED_WAIT);
    }

    @Override
    long enqueue(List<String> keys, Ticket ticket, long waitNanos);

    @Override
    default void dequeue(List<String> keys, String ticketId) {
        dequeue(keys, ticketId, UNBOUNDED_WAIT);
    }

    @Override
    void dequeue(List<String> keys, String ticketId, long waitNanos);

    @Override
    default List<RemoteLock> scan(int batchSize) {
        return scan(batchSize, Integer.MAX_VALUE);
    }

    @Override
    List<RemoteLock> scan(int batchSize, int limit);

    /** What {@link #tryAcquire} refuses before any round trip. */
    static void requireAcquirable(List<String> keys, long leaseMillis) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("no keys to acquire");
        }
        if (leaseMillis < 0) {
            throw new IllegalArgumentException("leaseMillis must be >= 0 (0 = no expiry), was " + leaseMillis);
        }
    }

    static void requireBatchSize(int batchSize) {
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batchSize must be > 0, was " + batchSize);
        }
    }

    /** The registry's own connections (tests). */
    OwnConnections connections();

    InfiniteLeases infiniteLeases();

    /** How many times the listener (or poller) began, or came back; 0 without one (tests). */
    int listenerConfirmations();

    /** One round trip on one of the registry's connections, for a health check. */
    void ping();

    /** Deletes up to {@code limit} expired locks of any node; how many. */
    int purge(int limit);
}
