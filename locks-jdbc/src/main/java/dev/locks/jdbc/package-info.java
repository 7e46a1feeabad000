/**
 * The JDBC backend: keyed locks shared by every node of an application, in a table of the application's own
 * database (PostgreSQL), through its {@link javax.sql.DataSource}.
 *
 * <h2>In the database</h2>
 * The shipped schema {@code dev/locks/jdbc/schema-postgresql.sql} (every name starts with the table prefix,
 * {@code locks_} by default):
 * <ul>
 *   <li>{@code locks_lock}: one row per held key (owner, its description, fencing token, acquired and expiry
 *       times by the database's clock, whether someone waits for it);</li>
 *   <li>{@code locks_fencing}: the sequence every fencing token comes from;</li>
 *   <li>{@code locks_acquire}, {@code locks_release}, {@code locks_renew}, {@code locks_force_release},
 *       {@code locks_purge}: the functions, one call per round trip, all-or-nothing;</li>
 *   <li>{@code locks_released}: the channel a release notifies, one notice per freed key that someone waits
 *       for (an uncontended release notifies nobody); each node listens once.</li>
 * </ul>
 */
package dev.locks.jdbc;
