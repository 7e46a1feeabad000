package dev.locks;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Fetch-or-compute with stampede protection: a value store in which a miss is computed at most once at a
 * time per key, however many callers miss together.
 *
 * <ul>
 *   <li>Hit: the stored, unexpired value comes back; nothing is computed.</li>
 *   <li>Miss: exactly one caller computes (after checking the store once more); every other caller for
 *       that key waits and receives the same value. The value is stored with its TTL
 *       ({@link Duration#ZERO} = no expiry). A {@code null} result is handed to every waiter but not
 *       stored.</li>
 *   <li>Failure: every waiter receives the computer's exception; nothing is stored; the next call computes
 *       again.</li>
 *   <li>Compute timeout: a computer that has not finished in time is replaced by the oldest waiter, which
 *       computes in its turn; with no waiter the miss simply ends. The first successful completion from
 *       any computer of the miss is stored and handed to every waiter; later ones change nothing. A caller
 *       that computed always gets its own result or exception back.</li>
 *   <li>A waiter's own wait time ends only its own wait, with {@link ComputeTimeoutException}; it never
 *       cancels the computation for the others.</li>
 *   <li>{@link #invalidate} wins over computations in flight: their results are not stored.</li>
 *   <li>A computation that fetches its own key, directly or through other keys, fails at once with an
 *       {@link IllegalStateException} naming the keys (it would otherwise wait for itself).</li>
 * </ul>
 *
 * <p>Keys follow the rules of {@link LockRegistry}: a {@code null}, empty or blank key is an
 * {@link IllegalArgumentException}. Methods beyond those of the product contract have default
 * implementations.
 */
public interface ComputeCache {

    /**
     * The stored value of {@code key}, or the result of {@code compute}, run by at most one caller at a time
     * for this key, with the default compute timeout and no wait time of its own.
     *
     * @param ttl how long the value is stored; {@link Duration#ZERO} for no expiry
     * @throws ComputeTimeoutException never with these options (no wait time)
     * @throws RuntimeException whatever the computer threw (checked exceptions included, unwrapped)
     */
    <V> V fetchOrCompute(String key, Duration ttl, Supplier<V> compute);

    /**
     * As {@link #fetchOrCompute(String, Duration, Supplier)}, with a compute timeout and an optional wait
     * time of this call's own, and section 11's {@link ComputeOptions#withRefreshAfter refreshAfter} (a hit on a
     * value stored longer ago returns it at once and starts one background refresh of the key, across all nodes)
     * and {@link ComputeOptions#withStaleIfError staleIfError} (a value stays readable as stale for so long after
     * its TTL, and a failing computation's callers get it instead of the exception, with at most one new attempt
     * per key and error back-off). The caches of this library honour both; this default, for other
     * implementations, only the TTL. The protocol form ({@link #begin}) honours neither.
     *
     * @throws IllegalArgumentException when {@code options} is {@code null}
     */
    default <V> V fetchOrCompute(String key, ComputeOptions options, Supplier<V> compute) {
        return fetchOrCompute(key, options.ttl(), compute);
    }

    /**
     * The seed's protocol form, for callers that compute elsewhere. Returns {@link ComputeOutcome.Hit} on a
     * hit; {@link ComputeOutcome.Compute} when the caller is to compute (and then call {@link #complete} or
     * {@link #fail}); otherwise waits, and returns {@link ComputeOutcome.Value} or
     * {@link ComputeOutcome.Failed}, or {@link ComputeOutcome.Compute} with the first computer's hint when
     * the caller was promoted because the computer stalled.
     *
     * @param hint passed on to a promoted computer; {@code null} means {@code ""}
     */
    ComputeOutcome begin(String key, Duration ttl, String hint);

    /**
     * As {@link #begin(String, Duration, String)}, with the TTL, compute timeout and wait time of {@code options}:
     * a waiter is promoted when the computer has not finished within the compute timeout, and gives up with
     * {@link ComputeTimeoutException} when its wait time runs out. For callers that compute elsewhere, such as a
     * reactive computation that must not hold a thread while it runs. By default the TTL only, with the defaults'
     * timeouts: the caches of this library override it.
     *
     * @param hint passed on to a promoted computer; {@code null} means {@code ""}
     * @throws ComputeTimeoutException when this caller's own wait time ran out (the miss goes on)
     */
    default ComputeOutcome begin(String key, ComputeOptions options, String hint) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        return begin(key, options.ttl(), hint);
    }

    /**
     * Stores {@code value} (unless {@code null}) and hands it to every waiter, if this is the first
     * successful completion of the ticket's miss.
     *
     * @param ttl {@code null} for the TTL given to {@link #begin}
     * @return false, changing nothing, when the miss already has its result or is over
     */
    boolean complete(ComputeTicket ticket, Object value, Duration ttl);

    /**
     * Hands {@code error} to every waiter and ends the miss, storing nothing, if the ticket is the miss's
     * current computer.
     *
     * @return false, changing nothing, for a demoted computer or a miss that is over
     */
    boolean fail(ComputeTicket ticket, Throwable error);

    /** A snapshot of the computations in flight, for operations (the actuator endpoint). */
    List<Computation> computations();

    /**
     * At most {@code limit} of the computations in flight, for a listing that must stay bounded (the actuator
     * endpoint).
     *
     * @throws IllegalArgumentException when {@code limit} is negative
     */
    default List<Computation> computations(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
        List<Computation> computations = computations();
        return computations.size() <= limit ? computations : computations.subList(0, limit);
    }

    /** The options of {@link #fetchOrCompute(String, Duration, Supplier)}, apart from its TTL. */
    default ComputeOptions defaultOptions() {
        return ComputeOptions.defaults();
    }

    /**
     * Removes the stored value of {@code key}, if any, and wins against computations in flight: once this
     * returns, every call for {@code key} that starts later (on any node) gets a value computed by a
     * computation that started after it. A computation in flight at that moment still answers its own caller
     * and the callers waiting for it, but its result is not stored. So "update the database, then invalidate"
     * never leaves the old value stored, however the two race with a computation that read the old row.
     *
     * @throws IllegalArgumentException for a {@code null}, empty or blank key
     */
    void invalidate(String key);

    /** How many computations are in flight; cheaper than {@code computations().size()} where it can be. */
    default int inFlightCount() {
        return computations().size();
    }

    /** A short name of the backend ({@code local}, {@code redis}), for the endpoint, health and metrics. */
    default String backend() {
        return "custom";
    }
}
