/**
 * The core's implementation: the lock engine, its wait queues and leases, and the compute cache's flights. Not an
 * API, and free to change in any release.
 *
 * <p>Most types here are package-private. The few that are public are so only because another package of
 * {@code locks-core} builds on them ({@code dev.locks.support}'s base classes for backends and
 * {@code dev.locks.local}'s in-memory backend), and Java has no visibility between "package" and "public". No
 * other module may use them, backends included: they build on {@code dev.locks.spi} and {@code dev.locks.support}
 * instead, and no public signature outside this package names a type of it (the {@code locks-architecture}
 * module checks both).
 */
package dev.locks.internal;
