package dev.locks.jdbc;

import dev.locks.spi.RemoteLockStore;

/**
 * What the registry and its tests need of a JDBC lock store besides {@link RemoteLockStore}: on PostgreSQL
 * {@link JdbcLockStore} (the schema's functions, {@code LISTEN/NOTIFY}), elsewhere {@link StatementLockStore}
 * (plain statements, releases polled).
 */
interface JdbcStore extends RemoteLockStore {

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
