package dev.locks.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.locks.LocksClock;
import java.time.Duration;
import java.util.function.ToLongFunction;

/**
 * The values of a compute cache in memory ({@link MemoryComputeBacking}, under {@code LocalComputeCache}):
 * a Caffeine cache bounded to a number of entries (or to a total weight
 * of its values), each value stored with its own deadline on the cache's clock.
 *
 * <p>Caffeine bounds only the size. Its per-entry (variable) expiry would do the TTLs too, but costs a read
 * about three times a plain {@code getIfPresent} (its timer wheel and ticker on every access); a deadline kept
 * in the stored value costs one clock reading and a comparison. A value past its deadline is never returned:
 * the read that finds it removes it; one nobody reads again waits for the size bound to evict it, so the
 * store never holds more than {@code maxEntries} values either way.
 */
final class MemoryValues implements ValueStore {

    private static final long NEVER = Long.MAX_VALUE;

    /**
     * A value, the {@link LocksClock#nanoTime()} at which it expires ({@link #NEVER}: no expiry), when it was
     * written, and until when it stays readable as stale (its deadline when it has no stale window).
     */
    private record Stored(Object value, long deadlineNanos, long writtenNanos, long staleDeadlineNanos) {

        boolean expired(long now) {
            return deadlineNanos != NEVER && now - deadlineNanos >= 0;
        }

        boolean gone(long now) {
            return deadlineNanos != NEVER && now - staleDeadlineNanos >= 0;
        }
    }

    private final Cache<String, Stored> cache;
    /** The end of each backing-off key's error back-off, on the clock; as bounded as the values. */
    private final Cache<String, Long> backOffs;
    private final LocksClock clock;

    /**
     * @param weigher {@code null} to bound the count to {@code maxEntries}; else the weight of a value, whose sum
     *        over the stored values is bounded to {@code maxWeight} instead
     */
    MemoryValues(long maxEntries, long maxWeight, ToLongFunction<Object> weigher, LocksClock clock) {
        this.cache = weigher == null ? Caffeine.newBuilder().maximumSize(maxEntries).build()
                : Caffeine.newBuilder().maximumWeight(maxWeight)
                        .<String, Stored>weigher((key, stored) -> weight(weigher, key, stored.value())).build();
        this.backOffs = Caffeine.newBuilder().maximumSize(weigher == null ? maxEntries : 10_000).build();
        this.clock = clock;
    }

    @Override
    public Object get(String key) {
        Stored stored = cache.getIfPresent(key);
        if (stored == null) {
            return null;
        }
        if (stored.deadlineNanos() != NEVER) {
            long now = clock.nanoTime();
            if (now - stored.deadlineNanos() >= 0) {
                if (stored.gone(now)) {
                    cache.asMap().remove(key, stored);
                }
                return null;
            }
        }
        return stored.value();
    }

    @Override
    public ValueStore.Entry entry(String key) {
        Stored stored = cache.getIfPresent(key);
        if (stored == null) {
            return null;
        }
        long now = clock.nanoTime();
        if (stored.gone(now)) {
            cache.asMap().remove(key, stored);
            return null;
        }
        Long backOff = backOffs.getIfPresent(key);
        boolean backingOff = backOff != null && now - backOff < 0;
        return new ValueStore.Entry(stored.value(), Math.max(0L, (now - stored.writtenNanos()) / 1_000_000L), stored.expired(now),
                backingOff);
    }

    @Override
    public void put(String key, Object value, Duration ttl) {
        put(key, value, ttl, Duration.ZERO);
    }

    @Override
    public void put(String key, Object value, Duration ttl, Duration staleIfError) {
        long now = clock.nanoTime();
        long deadline = ttl.isZero() ? NEVER : deadline(now, ttl.toNanos());
        long staleDeadline = deadline == NEVER || staleIfError.isZero() ? deadline
                : deadline(deadline, staleIfError.toNanos());
        cache.put(key, new Stored(value, deadline, now, staleDeadline));
        backOffs.invalidate(key);
    }

    @Override
    public boolean backOff(String key, Duration backOff) {
        long now = clock.nanoTime();
        long until = deadline(now, backOff.toNanos());
        boolean[] started = {false};
        backOffs.asMap().compute(key, (k, running) -> {
            if (running != null && now - running < 0) {
                return running;
            }
            started[0] = true;
            return until;
        });
        return started[0];
    }

    @Override
    public void remove(String key) {
        cache.invalidate(key);
        backOffs.invalidate(key);
    }

    /** How many values are stored (expired ones not yet read or evicted included), after pending evictions. */
    long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    /** The weight of the stored values, after pending evictions; 0 when the store is bounded by count. */
    long weight() {
        cache.cleanUp();
        return cache.policy().eviction().flatMap(eviction -> eviction.weightedSize().stream().boxed().findFirst())
                .orElse(0L);
    }

    /** Caffeine's weight, an {@code int}: a larger one counts as the largest. */
    private static int weight(ToLongFunction<Object> weigher, String key, Object value) {
        long weight = weigher.applyAsLong(value);
        if (weight < 0) {
            throw new IllegalArgumentException("the weigher of the value store gave " + weight + " for the value of '"
                    + key + "' (" + value.getClass().getName() + "); a weight must be >= 0");
        }
        return (int) Math.min(weight, Integer.MAX_VALUE);
    }

    private static long deadline(long nowNanos, long ttlNanos) {
        long deadline = nowNanos + ttlNanos;
        return ttlNanos > 0 && deadline < nowNanos ? NEVER - 1 : deadline;
    }
}
