package dev.locks;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How one {@link ComputeCache#fetchOrCompute(String, ComputeOptions, java.util.function.Supplier)} call
 * stores, waits and hands over: immutable, each {@code with...} returns a copy.
 *
 * <p>Defaults: TTL 5 minutes, compute timeout 30 seconds, no wait time.
 */
public final class ComputeOptions {

    private static final ComputeOptions DEFAULTS =
            new ComputeOptions(Duration.ofMinutes(5), Duration.ofSeconds(30), null);

    private final Duration ttl;
    private final Duration computeTimeout;
    private final Duration waitTime;

    private ComputeOptions(Duration ttl, Duration computeTimeout, Duration waitTime) {
        this.ttl = ttl;
        this.computeTimeout = computeTimeout;
        this.waitTime = waitTime;
    }

    /** TTL 5 minutes, compute timeout 30 seconds, no wait time. */
    public static ComputeOptions defaults() {
        return DEFAULTS;
    }

    /** How long a computed value is stored; {@link Duration#ZERO} for no expiry. */
    public ComputeOptions withTtl(Duration ttl) {
        if (ttl == null || ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must be a duration >= 0 (0 = no expiry), was " + ttl);
        }
        return new ComputeOptions(ttl, computeTimeout, waitTime);
    }

    /** After how long a computer that has not finished is replaced by the oldest waiter; must be positive. */
    public ComputeOptions withComputeTimeout(Duration computeTimeout) {
        if (computeTimeout == null || computeTimeout.isNegative() || computeTimeout.isZero()) {
            throw new IllegalArgumentException("computeTimeout must be a duration > 0, was " + computeTimeout);
        }
        return new ComputeOptions(ttl, computeTimeout, waitTime);
    }

    /** How long this caller waits for another's computation before giving up alone. */
    public ComputeOptions withWaitTime(Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must be a duration >= 0, was " + waitTime);
        }
        return new ComputeOptions(ttl, computeTimeout, waitTime);
    }

    /** Waits as long as the computation takes. */
    public ComputeOptions withoutWaitTime() {
        return new ComputeOptions(ttl, computeTimeout, null);
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

    @Override
    public boolean equals(Object other) {
        return other instanceof ComputeOptions that
                && ttl.equals(that.ttl)
                && computeTimeout.equals(that.computeTimeout)
                && Objects.equals(waitTime, that.waitTime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ttl, computeTimeout, waitTime);
    }

    @Override
    public String toString() {
        return "ComputeOptions[ttl=" + ttl + ", computeTimeout=" + computeTimeout
                + ", waitTime=" + (waitTime == null ? "none" : waitTime) + "]";
    }
}
