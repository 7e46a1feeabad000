package dev.locks;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;

/**
 * How {@link LockRegistry#acquire(java.util.Collection, AcquireOptions)} tries: immutable, each
 * {@code with...} returns a copy. Invalid values are an {@link IllegalArgumentException} naming the option.
 *
 * <p>The defaults are the seed's (Nebulex.Locks): 3 retries, a 10 ms jittered retry interval, a 30 s lock
 * timeout, and no wait time.
 *
 * <ul>
 *   <li>{@code retries}: how many times to try again after the first attempt fails; {@code 0} means one
 *       attempt and no wait.</li>
 *   <li>{@code retryInterval}: the pause between attempts. A fixed interval is jittered: each pause is
 *       uniform in {@code (interval, 2 x interval]}; zero retries at once. A function of the 0-based number
 *       of the attempt that just failed is used as is. A waiter is also woken as soon as a key it waits for
 *       is released; such an early wake-up counts as the next attempt.</li>
 *   <li>{@code lockTimeout}: how long a lock may be held before it counts as stale; the holder's own
 *       timeout decides. Infinite: only a dead owner makes it stale.</li>
 *   <li>{@code waitTime}: an overall deadline; whichever of {@code retries} and {@code waitTime} runs out
 *       first ends the wait.</li>
 *   <li>{@code holdAtLeast}: a lease closed before {@code acquiredAt + holdAtLeast} keeps its keys locked
 *       until then (for scheduled jobs on one node at a time).</li>
 *   <li>{@code shared} and {@code permits}: a shared (read) lock, or up to n holders of a key at once.</li>
 * </ul>
 */
public final class AcquireOptions {

    private static final int INFINITE = -1;

    private static final AcquireOptions DEFAULTS =
            new AcquireOptions(3, Duration.ofMillis(10), null, Duration.ofSeconds(30), null, Duration.ZERO, false, 1);

    private final int retries;
    private final Duration retryInterval;
    private final IntFunction<Duration> retryIntervalFunction;
    private final Duration lockTimeout;
    private final Duration waitTime;
    private final Duration holdAtLeast;
    private final boolean shared;
    private final int permits;
    // The getters' results, built once: acquire reads them on every call.
    private final OptionalInt retriesView;
    private final Optional<Duration> lockTimeoutView;
    private final Optional<Duration> waitTimeView;

    private AcquireOptions(int retries, Duration retryInterval, IntFunction<Duration> retryIntervalFunction,
            Duration lockTimeout, Duration waitTime, Duration holdAtLeast, boolean shared, int permits) {
        if (shared && permits > 1) {
            throw new IllegalArgumentException("shared() cannot be combined with withPermits(" + permits
                    + "): a key is taken either shared (readers), or by up to n permit holders, not both");
        }
        if (lockTimeout != null && holdAtLeast.compareTo(lockTimeout) > 0) {
            throw new IllegalArgumentException("holdAtLeast (" + holdAtLeast + ") must not be larger than lockTimeout ("
                    + lockTimeout + "): a lock is stale after its lockTimeout, so it cannot be held longer");
        }
        this.retries = retries;
        this.retryInterval = retryInterval;
        this.retryIntervalFunction = retryIntervalFunction;
        this.lockTimeout = lockTimeout;
        this.waitTime = waitTime;
        this.holdAtLeast = holdAtLeast;
        this.shared = shared;
        this.permits = permits;
        this.retriesView = retries == INFINITE ? OptionalInt.empty() : OptionalInt.of(retries);
        this.lockTimeoutView = Optional.ofNullable(lockTimeout);
        this.waitTimeView = Optional.ofNullable(waitTime);
    }

    /** 3 retries, 10 ms jittered retry interval, 30 s lock timeout, no wait time. */
    public static AcquireOptions defaults() {
        return DEFAULTS;
    }

    /** Tries {@code retries + 1} times in all; {@code 0} makes one attempt and never waits. */
    public AcquireOptions withRetries(int retries) {
        if (retries < 0) {
            throw new IllegalArgumentException("retries must be >= 0 (0 = one attempt), was " + retries);
        }
        return new AcquireOptions(retries, retryInterval, retryIntervalFunction, lockTimeout, waitTime,
                holdAtLeast, shared, permits);
    }

    /** Tries until the keys are taken, or until {@code waitTime} runs out when one is set. */
    public AcquireOptions withInfiniteRetries() {
        return new AcquireOptions(INFINITE, retryInterval, retryIntervalFunction, lockTimeout, waitTime,
                holdAtLeast, shared, permits);
    }

    /** A fixed pause, jittered: each pause is uniform in {@code (interval, 2 x interval]}; zero retries at once. */
    public AcquireOptions withRetryInterval(Duration interval) {
        requireNonNegative("retryInterval", interval);
        return new AcquireOptions(retries, interval, null, lockTimeout, waitTime, holdAtLeast, shared, permits);
    }

    /**
     * A pause computed from the 0-based number of the attempt that just failed, used without jitter. The
     * function is called only when a pause is due; a {@code null} or negative result is an
     * {@link IllegalArgumentException} in the acquiring caller, with nothing left locked.
     */
    public AcquireOptions withRetryInterval(IntFunction<Duration> interval) {
        Objects.requireNonNull(interval, "retryInterval function must not be null");
        return new AcquireOptions(retries, null, interval, lockTimeout, waitTime, holdAtLeast, shared, permits);
    }

    /** How long a lock may be held before it counts as stale; must be positive. */
    public AcquireOptions withLockTimeout(Duration lockTimeout) {
        requirePositive("lockTimeout", lockTimeout);
        return new AcquireOptions(retries, retryInterval, retryIntervalFunction, lockTimeout, waitTime,
                holdAtLeast, shared, permits);
    }

    /** Locks never expire: only a dead owner makes them stale. */
    public AcquireOptions withInfiniteLockTimeout() {
        return new AcquireOptions(retries, retryInterval, retryIntervalFunction, null, waitTime,
                holdAtLeast, shared, permits);
    }

    /** An overall deadline for the acquire; zero makes one attempt. */
    public AcquireOptions withWaitTime(Duration waitTime) {
        requireNonNegative("waitTime", waitTime);
        return new AcquireOptions(retries, retryInterval, retryIntervalFunction, lockTimeout, waitTime,
                holdAtLeast, shared, permits);
    }

    /** No overall deadline: only {@code retries} ends the wait. */
    public AcquireOptions withoutWaitTime() {
        return new AcquireOptions(retries, retryInterval, retryIntervalFunction, lockTimeout, null,
                holdAtLeast, shared, permits);
    }

    /**
     * How long after {@code acquiredAt} the keys stay locked at least: a lease closed earlier keeps its keys
     * locked for everyone (its own thread included) until {@code acquiredAt + holdAtLeast} by the backend's
     * clock, then they free themselves (ShedLock's {@code lockAtLeastFor}). Zero (the default) frees them at
     * close. Must be {@code >= 0} and not larger than {@code lockTimeout}.
     */
    public AcquireOptions withHoldAtLeast(Duration holdAtLeast) {
        requireNonNegative("holdAtLeast", holdAtLeast);
        return new AcquireOptions(retries, retryInterval, retryIntervalFunction, lockTimeout, waitTime,
                holdAtLeast, shared, permits);
    }

    /**
     * Takes the keys shared (a read lock): any number of shared holders of a key at once, and no exclusive holder
     * meanwhile. Writers are not starved: once an exclusive acquirer waits for a key, newer shared acquirers of it
     * wait behind it (and a newer shared {@code tryAcquire} of it is refused). A thread that holds a key shared and
     * asks for it exclusive gets an {@link IllegalStateException} at once. Not combinable with
     * {@link #withPermits(int) permits} above 1.
     */
    public AcquireOptions shared() {
        return new AcquireOptions(retries, retryInterval, retryIntervalFunction, lockTimeout, waitTime, holdAtLeast,
                true, permits);
    }

    /**
     * Lets up to {@code permits} leases hold a key at once (a semaphore), each a lease of its own with its own
     * fencing token and expiry, so that a crashed holder's permit frees itself after its lock timeout. Callers of
     * one key must agree on the number: another number while permits are held is an
     * {@link IllegalArgumentException} naming both. {@code 1} (the default) is a plain exclusive lock.
     */
    public AcquireOptions withPermits(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be >= 1 (1 = an exclusive lock), was " + permits);
        }
        return new AcquireOptions(retries, retryInterval, retryIntervalFunction, lockTimeout, waitTime, holdAtLeast,
                shared, permits);
    }

    /** Whether the keys are taken shared ({@link #shared()}); {@code false} by default. */
    public boolean isShared() {
        return shared;
    }

    /** How many leases may hold a key at once ({@link #withPermits(int)}); {@code 1} by default. */
    public int permits() {
        return permits;
    }

    /** How long the keys stay locked at least after {@code acquiredAt}; zero by default. */
    public Duration holdAtLeast() {
        return holdAtLeast;
    }

    /** The number of retries after the first attempt; empty when infinite. */
    public OptionalInt retries() {
        return retriesView;
    }

    /** The fixed (jittered) retry interval; empty when a function computes the pauses. */
    public Optional<Duration> retryInterval() {
        return Optional.ofNullable(retryInterval);
    }

    /** The function that computes the pauses; empty when the interval is fixed. */
    public Optional<IntFunction<Duration>> retryIntervalFunction() {
        return Optional.ofNullable(retryIntervalFunction);
    }

    /** The lock timeout; empty when infinite. */
    public Optional<Duration> lockTimeout() {
        return lockTimeoutView;
    }

    /** The overall deadline of an acquire, if any. */
    public Optional<Duration> waitTime() {
        return waitTimeView;
    }

    /** Whether another attempt may follow attempt number {@code failedAttempt} (0-based), by the retries. */
    public boolean allowsRetryAfter(int failedAttempt) {
        return retries == INFINITE || failedAttempt < retries;
    }

    /**
     * The pause after the 0-based attempt {@code failedAttempt} failed: the fixed interval plus a uniform
     * jitter in {@code (0, interval]}, or the function's result.
     *
     * @throws IllegalArgumentException when the function returns {@code null} or a negative duration
     */
    public Duration pauseAfter(int failedAttempt) {
        if (retryIntervalFunction == null) {
            long nanos = retryInterval.toNanos();
            return nanos == 0 ? Duration.ZERO : Duration.ofNanos(nanos + 1 + ThreadLocalRandom.current().nextLong(nanos));
        }
        Duration pause = retryIntervalFunction.apply(failedAttempt);
        if (pause == null || pause.isNegative()) {
            throw new IllegalArgumentException(
                    "retry interval function must return a non-negative duration, got: " + pause
                            + " for attempt " + failedAttempt);
        }
        return pause;
    }

    private static void requireNonNegative(String option, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(option + " must be a duration >= 0, was " + value);
        }
    }

    private static void requirePositive(String option, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(option + " must be a duration > 0, was " + value);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AcquireOptions that
                && retries == that.retries
                && Objects.equals(retryInterval, that.retryInterval)
                && Objects.equals(retryIntervalFunction, that.retryIntervalFunction)
                && Objects.equals(lockTimeout, that.lockTimeout)
                && Objects.equals(waitTime, that.waitTime)
                && holdAtLeast.equals(that.holdAtLeast)
                && shared == that.shared
                && permits == that.permits;
    }

    @Override
    public int hashCode() {
        return Objects.hash(retries, retryInterval, retryIntervalFunction, lockTimeout, waitTime, holdAtLeast, shared,
                permits);
    }

    @Override
    public String toString() {
        return "AcquireOptions[retries=" + (retries == INFINITE ? "infinity" : retries)
                + ", retryInterval=" + (retryIntervalFunction != null ? "function" : retryInterval)
                + ", lockTimeout=" + (lockTimeout == null ? "infinity" : lockTimeout)
                + ", waitTime=" + (waitTime == null ? "none" : waitTime)
                + (holdAtLeast.isZero() ? "" : ", holdAtLeast=" + holdAtLeast)
                + (shared ? ", shared" : "") + (permits == 1 ? "" : ", permits=" + permits) + "]";
    }
}
