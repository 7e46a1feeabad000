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
public interface ValueStore {

    /** The stored, unexpired value of {@code key}, or {@code null}. */
    Object get(String key);

    /**
     * Stores {@code value}, replacing any value of {@code key}.
     *
     * @param value never {@code null}
     * @param ttl how long the value stays; {@link Duration#ZERO} for no expiry
     */
    void put(String key, Object value, Duration ttl);

    /** Removes the value of {@code key}, if any. */
    void remove(String key);
}
