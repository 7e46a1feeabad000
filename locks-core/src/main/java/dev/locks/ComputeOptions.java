package dev.locks;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How one {@link ComputeCache#fetchOrCompute(String, ComputeOptions, java.util.function.Supplier)} call
 * stores, waits and hands over: immutable, each {@code with...} returns a copy.
 *
 * <p>Defaults: TTL 5 minutes, compute timeout 30 seconds, no wait time, no {@code refreshAfter}, no
 * {@code staleIfError}.
 */
public final class ComputeOptions {

    private static final ComputeOptions DEFAULTS =
            new ComputeOptions(Duration.ofMinutes(5), Duration.ofSeconds(30), null, null, null);

    private final Duration ttl;
    private final Duration computeTimeout;
    private final Duration waitTime;
    private final Duration refreshAfter;
    private final Duration staleIfError;

    private ComputeOptions(Duration ttl, Duration computeTimeout, Duration waitTime, Duration refreshAfter,
            Duration staleIfError) {
        this.ttl = ttl;
        this.computeTimeout = computeTimeout;
        this.waitTime = waitTime;
        this.refreshAfter = refreshAfter;
        this.staleIfError = staleIfError;
    }

    /** TTL 5 minutes, compute timeout 30 seconds, no wait time, no refresh-ahead, no stale-if-error. */
    public static ComputeOptions defaults() {
        return DEFAULTS;
    }

    /**
     * How long a computed value is stored; {@link Duration#ZERO} for no expiry.
     *
     * @throws IllegalArgumentException also when a {@code refreshAfter} is set that is not shorter than a non-zero
     *         {@code ttl}
     */
    public ComputeOptions withTtl(Duration ttl) {
        if (ttl == null || ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must be a duration >= 0 (0 = no expiry), was " + ttl);
        }
        checkRefreshAfter(refreshAfter, ttl);
        return new ComputeOptions(ttl, computeTimeout, waitTime, refreshAfter, staleIfError);
    }

    /** After how long a computer that has not finished is replaced by the oldest waiter; must be positive. */
    public ComputeOptions withComputeTimeout(Duration computeTimeout) {
        if (computeTimeout == null || computeTimeout.isNegative() || computeTimeout.isZero()) {
            throw new IllegalArgumentException("computeTimeout must be a duration > 0, was " + computeTimeout);
        }
        return new ComputeOptions(ttl, computeTimeout, waitTime, refreshAfter, staleIfError);
    }

    /** How long this caller waits for another's computation before giving up alone. */
    public ComputeOptions withWaitTime(Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must be a duration >= 0, was " + waitTime);
        }
        return new ComputeOptions(ttl, computeTimeout, waitTime, refreshAfter, staleIfError);
    }

    /** Waits as long as the computation takes. */
    public ComputeOptions withoutWaitTime() {
        return new ComputeOptions(ttl, computeTimeout, null, refreshAfter, staleIfError);
    }

    /**
     * Refresh-ahead: a hit on a value stored longer ago than {@code refreshAfter} returns it at once and starts one
     * background recomputation of the key (across all nodes), whose result replaces it with a fresh TTL.
     *
     * @param refreshAfter positive, and shorter than the TTL unless the TTL is {@link Duration#ZERO} (no expiry)
     * @throws IllegalArgumentException otherwise, naming both
     */
    public ComputeOptions withRefreshAfter(Duration refreshAfter) {
        if (refreshAfter == null || refreshAfter.isNegative() || refreshAfter.isZero()) {
            throw new IllegalArgumentException("refreshAfter must be a duration > 0, was " + refreshAfter);
        }
        checkRefreshAfter(refreshAfter, ttl);
        return new ComputeOptions(ttl, computeTimeout, waitTime, refreshAfter, staleIfError);
    }

    /** No refresh-ahead (the default). */
    public ComputeOptions withoutRefreshAfter() {
        return new ComputeOptions(ttl, computeTimeout, waitTime, null, staleIfError);
    }

    /**
     * Stale-if-error: a value stays readable as stale for {@code staleIfError} after its TTL; a computation of the
     * key that fails meanwhile hands its callers the stale value instead of the exception.
     *
     * @param staleIfError positive
     * @throws IllegalArgumentException otherwise
     */
    public ComputeOptions withStaleIfError(Duration staleIfError) {
        if (staleIfError == null || staleIfError.isNegative() || staleIfError.isZero()) {
            throw new IllegalArgumentException("staleIfError must be a duration > 0, was " + staleIfError);
        }
        return new ComputeOptions(ttl, computeTimeout, waitTime, refreshAfter, staleIfError);
    }

    /** No stale-if-error (the default). */
    public ComputeOptions withoutStaleIfError() {
        return new ComputeOptions(ttl, computeTimeout, waitTime, refreshAfter, null);
    }

    public Duration ttl() {
        return ttl;
    }

    public Duration computeTimeout() {
        return computeTimeout;
    }

    public Optional<Duration> waitTime() {
        return Optional.ofNullable(waitTime);
    }

    /** The age after which a hit starts a background refresh; empty: never. */
    public Optional<Duration> refreshAfter() {
        return Optional.ofNullable(refreshAfter);
    }

    /** How long after its TTL a value stays readable as stale; empty: not at all. */
    public Optional<Duration> staleIfError() {
        return Optional.ofNullable(staleIfError);
    }

    private static void checkRefreshAfter(Duration refreshAfter, Duration ttl) {
        if (refreshAfter != null && !ttl.isZero() && refreshAfter.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException("refreshAfter (" + refreshAfter + ") must be shorter than ttl (" + ttl
                    + "), or ttl must be 0 (no expiry)");
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ComputeOptions that
                && ttl.equals(that.ttl)
                && computeTimeout.equals(that.computeTimeout)
                && Objects.equals(waitTime, that.waitTime)
                && Objects.equals(refreshAfter, that.refreshAfter)
                && Objects.equals(staleIfError, that.staleIfError);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ttl, computeTimeout, waitTime, refreshAfter, staleIfError);
    }

    @Override
    public String toString() {
        return "ComputeOptions[ttl=" + ttl + ", computeTimeout=" + computeTimeout
                + ", waitTime=" + (waitTime == null ? "none" : waitTime)
                + (refreshAfter == null ? "" : ", refreshAfter=" + refreshAfter)
                + (staleIfError == null ? "" : ", staleIfError=" + staleIfError) + "]";
    }
}
