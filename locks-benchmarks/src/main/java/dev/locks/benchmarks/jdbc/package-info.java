/**
 * The JDBC comparison: a lock cycle on PostgreSQL, this project's {@code JdbcLockRegistry} against Spring
 * Integration's {@code JdbcLockRegistry} and ShedLock's {@code JdbcTemplateLockProvider}, each on a PostgreSQL
 * server the benchmark starts for itself.
 */
package dev.locks.benchmarks.jdbc;
