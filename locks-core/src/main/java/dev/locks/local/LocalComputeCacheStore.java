package dev.locks.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.locks.LocksClock;
import dev.locks.internal.ValueStore;
import java.time.Duration;

/**
 * The values of a {@link LocalComputeCache}: a Caffeine cache bounded to a number of entries, each entry
 * expiring after its own TTL, on the cache's clock.
 */
final class LocalComputeCacheStore implements ValueStore {

    /** Caffeine caps this at its own maximum (about 150 years). */
    private static final Duration NO_EXPIRY = Duration.ofNanos(Long.MAX_VALUE);

    private final Cache<String, Object> cache;
    private final Policy.VarExpiration<String, Object> expiry;

    LocalComputeCacheStore(long maxEntries, LocksClock clock) {
        this.cache = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .ticker(ticker(clock))
                // every value is stored through VarExpiration.put with its own TTL: this default never applies
                .expireAfter(Expiry.<String, Object>creating((key, value) -> NO_EXPIRY))
                .build();
        this.expiry = cache.policy().expireVariably().orElseThrow();
    }

    @Override
    public Object get(String key) {
        return cache.getIfPresent(key);
    }

    @Override
    public void put(String key, Object value, Duration ttl) {
        expiry.put(key, value, ttl.isZero() ? NO_EXPIRY : ttl);
    }

    @Override
    public void remove(String key) {
        cache.invalidate(key);
    }

    /** How many values are stored, after pending evictions and expiries have run. */
    long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    private static Ticker ticker(LocksClock clock) {
        return clock == LocksClock.system() ? Ticker.systemTicker() : clock::nanoTime;
    }
}
