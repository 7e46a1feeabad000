/**
 * The JDBC backend: keyed locks ({@link dev.locks.jdbc.JdbcLockRegistry}) and computed values
 * ({@link dev.locks.jdbc.JdbcComputeCache}) shared by every node of an application, in tables of the
 * application's own database (PostgreSQL, MariaDB, MySQL or H2: {@code Dialect}, detected from the connection's
 * metadata or named by {@code locks.jdbc.dialect}), through its {@link javax.sql.DataSource}.
 *
 * <h2>In the database</h2>
 * On MariaDB, MySQL and H2 the schema ({@code schema-mariadb.sql}, {@code schema-mysql.sql}, {@code schema-h2.sql}) is
 * three plain tables, {@code locks_lock} (a row per key, kept free after its release with {@code released_at} set,
 * which the other nodes poll for), {@code locks_waiter} (the tickets) and {@code locks_counter} (fencing tokens and
 * ticket order), written by plain statements ({@code StatementLockStore}). On PostgreSQL, the shipped schema {@code dev/locks/jdbc/schema-postgresql.sql} (every name starts with the table prefix,
 * {@code locks_} by default):
 * <ul>
 *   <li>{@code locks_lock}: one row per held key (owner, its description, fencing token, acquired and expiry
 *       times by the database's clock, whether someone waits for it); a key longer than 1,000 bytes is stored
 *       under a digest ({@code locks_key}), with the key as given beside it;</li>
 *   <li>{@code locks_fencing}: the sequence the fencing tokens come from, each token at least the database's
 *       clock in microseconds ({@code locks_next_token}), drawn once every row of its lease is taken;</li>
 *   <li>{@code locks_waiter} and {@code locks_ticket}: the wait queue of each key across nodes (a ticket per
 *       waiting acquire, expiring by the database's clock) and the sequence that orders the tickets;</li>
 *   <li>{@code locks_acquire}, {@code locks_release}, {@code locks_renew}, {@code locks_enqueue},
 *       {@code locks_dequeue}, {@code locks_force_release}, {@code locks_purge}: the functions, one call per
 *       round trip, all-or-nothing;</li>
 *   <li>{@code locks_released}: the channel a release notifies, one notice per freed key that someone waits
 *       for (an uncontended release notifies nobody);</li>
 *   <li>{@code locks_value} and {@code locks_compute}: the compute cache's values ({@code bytea}, with their
 *       expiry by the database's clock) and the record of each key's miss in flight (its compute lock), written
 *       by {@code locks_compute_claim}, {@code locks_compute_complete}, {@code locks_compute_fail} and
 *       {@code locks_compute_invalidate}, each under the key's advisory lock;</li>
 *   <li>{@code locks_computed}: the channel on which the end of each miss, and each invalidation during one,
 *       is told to every node.</li>
 * </ul>
 * Each node listens on one connection per data source for both channels, shared by its registries and
 * caches (PostgreSQL); elsewhere each registry polls for released keys once per poll interval.
 */
package dev.locks.jdbc;
