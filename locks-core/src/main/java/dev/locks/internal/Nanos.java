package dev.locks.internal;

import java.time.Duration;

/**
 * Time in nanoseconds, the one place where the engine converts and adds it: every operation saturates at
 * {@link #NEVER} ({@link Long#MAX_VALUE}, which stands for an infinite lock timeout or no expiry) instead of
 * overflowing or throwing, so that a very long duration means "never" wherever it is used.
 */
final class Nanos {

    /** No end: an infinite lock timeout, a lock that never expires. */
    static final long NEVER = Long.MAX_VALUE;

    private static final long PER_MILLI = 1_000_000L;

    private Nanos() {
    }

    /** {@code duration} in nanoseconds; {@link #NEVER} for one too long to count (about 292 years or more). */
    static long of(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return NEVER;
        }
    }

    /** {@code millis} milliseconds ({@code >= 0}) in nanoseconds, saturated at {@link #NEVER}. */
    static long ofMillis(long millis) {
        return millis >= NEVER / PER_MILLI ? NEVER : millis * PER_MILLI;
    }

    /** {@code nowNanos + nanos} for {@code nanos >= 0}, saturated at {@link #NEVER}. */
    static long after(long nowNanos, long nanos) {
        return nanos >= NEVER - Math.max(nowNanos, 0) ? NEVER : nowNanos + nanos;
    }

    /** {@code nanos} ({@code > 0}) in whole milliseconds, rounded up: a lease never ends before its time. */
    static long toMillisRoundedUp(long nanos) {
        return nanos / PER_MILLI + (nanos % PER_MILLI == 0 ? 0 : 1);
    }
}
