package dev.locks.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.locks.LocksClock;
import dev.locks.internal.ValueStore;
import java.time.Duration;

/**
 * The values of a {@link LocalComputeCache}: a Caffeine cache bounded to a number of entries, each value
 * stored with its own deadline on the cache's clock.
 *
 * <p>Caffeine bounds only the size. Its per-entry (variable) expiry would do the TTLs too, but costs a read
 * about three times a plain {@code getIfPresent} (its timer wheel and ticker on every access); a deadline kept
 * in the stored value costs one clock reading and a comparison. A value past its deadline is never returned:
 * the read that finds it removes it; one nobody reads again waits for the size bound to evict it, so the
 * store never holds more than {@code maxEntries} values either way.
 */
final class LocalComputeCacheStore implements ValueStore {

    private static final long NEVER = Long.MAX_VALUE;

    /** A value and the {@link LocksClock#nanoTime()} at which it expires ({@link #NEVER}: no expiry). */
    private record Stored(Object value, long deadlineNanos) {
    }

    private final Cache<String, Stored> cache;
    private final LocksClock clock;

    LocalComputeCacheStore(long maxEntries, LocksClock clock) {
        this.cache = Caffeine.newBuilder().maximumSize(maxEntries).build();
        this.clock = clock;
    }

    @Override
    public Object get(String key) {
        Stored stored = cache.getIfPresent(key);
        if (stored == null) {
            return null;
        }
        if (stored.deadlineNanos() != NEVER && clock.nanoTime() - stored.deadlineNanos() >= 0) {
            cache.asMap().remove(key, stored);
            return null;
        }
        return stored.value();
    }

    @Override
    public void put(String key, Object value, Duration ttl) {
        cache.put(key, new Stored(value, ttl.isZero() ? NEVER : deadline(clock.nanoTime(), ttl.toNanos())));
    }

    @Override
    public void remove(String key) {
        cache.invalidate(key);
    }

    /** How many values are stored (expired ones not yet read or evicted included), after pending evictions. */
    long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    private static long deadline(long nowNanos, long ttlNanos) {
        long deadline = nowNanos + ttlNanos;
        return ttlNanos > 0 && deadline < nowNanos ? NEVER - 1 : deadline;
    }
}
