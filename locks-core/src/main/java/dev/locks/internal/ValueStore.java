package dev.locks.internal;

import java.time.Duration;

/**
 * Where a {@link dev.locks.ComputeCache} keeps its values, apart from how it computes them: the seam between
 * {@link ComputeFlights} (single flight) and a backend's storage (Caffeine locally, Redis when distributed).
 * Not an API.
 *
 * <p>Implementations are thread-safe. {@link #get} is the hit path of every call: keep it as cheap as the
 * underlying store's own lookup.
 */
interface ValueStore {

    /** The stored, unexpired value of {@code key}, or {@code null}. */
    Object get(String key);

    /**
     * Stores {@code value}, replacing any value of {@code key}.
     *
     * @param value never {@code null}
     * @param ttl how long the value stays; {@link Duration#ZERO} for no expiry
     */
    void put(String key, Object value, Duration ttl);

    /**
     * As {@link #put(String, Object, Duration)}, recording the write time, keeping the value readable as stale by
     * {@link #entry} for {@code staleIfError} after its TTL ({@link Duration#ZERO}: not at all), and ending the
     * key's error back-off. By default the plain put.
     */
    default void put(String key, Object value, Duration ttl, Duration staleIfError) {
        put(key, value, ttl);
    }

    /**
     * The value with its age, or the stale value, and whether the key backs off: as
     * {@link dev.locks.spi.RemoteComputeStore#entry} (read). By default {@link #get} as a value of age 0.
     */
    default Entry entry(String key) {
        Object value = get(key);
        return value == null ? null : new Entry(value, 0L, false, false);
    }

    /**
     * Starts the error back-off of {@code key} for {@code backOff}, unless one runs.
     *
     * @return whether this call started it; by default false (no back-off kept)
     */
    default boolean backOff(String key, Duration backOff) {
        return false;
    }

    /** Removes the value of {@code key}, its stale value and its back-off, if any. */
    void remove(String key);

    /**
     * A value as {@link #entry} reads it.
     *
     * @param value never {@code null}
     * @param ageMillis how long ago it was written, by the store's clock (0 when unknown)
     * @param stale whether it is past its TTL, readable only for stale-if-error
     * @param backingOff whether the key's error back-off runs
     */
    record Entry(Object value, long ageMillis, boolean stale, boolean backingOff) {
    }
}
