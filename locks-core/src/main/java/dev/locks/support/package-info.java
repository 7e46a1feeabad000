/**
 * What a backend author builds a lock registry and a compute cache from: the base class of every registry in
 * this project ({@link dev.locks.support.AbstractLockRegistry}, in memory or in front of a
 * {@link dev.locks.spi.RemoteLockStore}) and its builder, the key checks a store shares with the registry
 * ({@link dev.locks.support.StoreKeys}), and the base of every compute cache
 * ({@link dev.locks.support.AbstractComputeCache}, in memory or in front of a {@link dev.locks.spi.RemoteComputeStore},
 * whose caches across nodes extend {@link dev.locks.support.RemoteComputeCache}) and its builder.
 *
 * <p>A backend chooses its store and its own settings; the lock algorithm (all-or-nothing attempts, re-entry,
 * fencing tokens, waiting, retries, stale cleanup, the watchdog; who computes a miss, who waits, who takes over a
 * stalled computation) stays in the core, behind these types. Like
 * ShedLock's {@code support} package, this is an API for backends, not for applications: applications use
 * {@link dev.locks.LockRegistry} and the backends' builders.
 *
 * <p>Stability: public and versioned with the project. Its signatures name only {@code dev.locks},
 * {@code dev.locks.spi} and JDK types, never the core's implementation ({@code dev.locks.internal}, which may
 * change in any release); a change to them is called out in the release notes, as a change to
 * {@code dev.locks.spi} is.
 */
package dev.locks.support;
