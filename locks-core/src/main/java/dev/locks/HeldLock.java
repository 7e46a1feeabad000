package dev.locks;

import java.time.Instant;

/**
 * One held key, as operations see it.
 *
 * @param key the key as the caller gave it (without any storage prefix)
 * @param owner a readable description of the holder: its thread, and its node for distributed backends
 * @param fencingToken the token of the lease that took this key
 * @param acquiredAt when the key was taken
 * @param expiresAt when the lock turns stale unless renewed; {@link Instant#MAX} for never
 * @param stale whether the lock is stale now (dead owner, or past {@code expiresAt})
 */
public record HeldLock(String key, String owner, long fencingToken, Instant acquiredAt, Instant expiresAt,
        boolean stale) {
}
