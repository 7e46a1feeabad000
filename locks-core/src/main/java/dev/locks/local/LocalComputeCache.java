package dev.locks.local;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeTimeoutException;
import dev.locks.support.AbstractComputeCache;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.function.ToLongFunction;

/**
 * The in-memory {@link ComputeCache}: values in a bounded Caffeine cache, each with its own TTL; misses
 * computed at most once at a time per key in this JVM.
 *
 * <ul>
 *   <li>A hit costs about a Caffeine {@code getIfPresent}: no lock, no allocation.</li>
 *   <li>On a miss, the caller that starts it looks the key up once more, then computes; every other caller
 *       of the key waits (in its own thread) and receives the same value, or the same exception object.
 *       A value is stored with its TTL ({@link Duration#ZERO}: no expiry) unless it is {@code null}; an
 *       exception stores nothing, so the next call computes again.</li>
 *   <li>A computer not done within its compute timeout is replaced by the oldest waiter, which computes
 *       in its turn. The first of them to finish settles the miss; a later finisher's value is dropped,
 *       but its own caller still receives it. With nobody waiting, the overdue miss ends when the key is
 *       next asked for (that caller computes) or {@link #computations()} runs.</li>
 *   <li>A waiter's own wait time ({@link ComputeOptions#withWaitTime}) ends only its wait, with
 *       {@link ComputeTimeoutException}. An interrupted waiter leaves with a
 *       {@link CancellationException}, its interrupt status set. Either way the computation goes on.</li>
 * </ul>
 *
 * <p>Thread-safe. Waiters need no thread of their own and the cache starts none (Caffeine's maintenance
 * runs on its default executor).
 */
public final class LocalComputeCache extends AbstractComputeCache {

    private LocalComputeCache(Builder builder) {
        super(builder, null);
    }

    /** A cache with every default: see {@link Builder}. */
    public LocalComputeCache() {
        this(builder());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How many values are stored, after pending evictions; for tests. */
    long storedCount() {
        return valuesHeld();
    }

    /** The weight of the stored values ({@link Builder#maxWeight}), after pending evictions; for tests. */
    long storedWeight() {
        return valuesWeight();
    }

    /**
     * Starts no more background refreshes ({@link ComputeOptions#withRefreshAfter}); later calls throw
     * {@link IllegalStateException}.
     */
    @Override
    public void close() {
        super.close();
    }

    /**
     * Builds a {@link LocalComputeCache}. Defaults: {@link ComputeOptions#defaults()} (TTL 5 minutes, compute
     * timeout 30 seconds), 10,000 entries (no weight), the system clock, no observer (see
     * {@link AbstractComputeCache.Builder}).
     */
    public static final class Builder extends AbstractComputeCache.Builder<Builder> {

        private Builder() {
            super("local");
        }

        /**
         * The bound of the value store ({@code locks.compute.max-entries}); must be positive. Unused with
         * {@link #maxWeight}.
         */
        @Override
        public Builder maxEntries(long maxEntries) {
            return super.maxEntries(maxEntries);
        }

        /**
         * Bounds the value store by the weight of its values rather than by their count: the sum of
         * {@code weigher}'s weights of the stored values stays within {@code maxWeight}, the values least likely to
         * be used again evicted first. For values of very different sizes, of which a count alone would let a few
         * huge ones fill the heap: bytes, say, with a weigher that estimates a value's size (a per-value overhead
         * included, so that many tiny values are bounded too). Replaces {@link #maxEntries}, as Caffeine bounds one
         * or the other. A value is weighed once, when it is stored: a weight must be {@code >= 0}, one above
         * {@link Integer#MAX_VALUE} counts as that, and a weigher that throws fails the computation's callers as
         * a value that cannot be stored.
         */
        @Override
        public Builder maxWeight(long maxWeight, ToLongFunction<Object> weigher) {
            return super.maxWeight(maxWeight, weigher);
        }

        /**
         * @throws IllegalArgumentException naming the setting that is invalid
         */
        public LocalComputeCache build() {
            return new LocalComputeCache(this);
        }
    }
}
