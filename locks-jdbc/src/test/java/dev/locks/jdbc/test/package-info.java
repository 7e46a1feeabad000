/** Test support: a PostgreSQL server of a test's own on a free loopback port ({@link dev.locks.jdbc.test.PostgresServer}). */
package dev.locks.jdbc.test;
