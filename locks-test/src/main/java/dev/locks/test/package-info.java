/**
 * Test support: {@link dev.locks.test.ManualClock}, a clock that tests advance by hand, and
 * {@link dev.locks.test.InMemoryLockServer}, a {@link dev.locks.spi.RemoteLockStore} in memory for the engine's
 * distributed path without a server.
 */
package dev.locks.test;
