package dev.locks.internal;

import dev.locks.LocksClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How the waiters of a {@link Flight} read time and park. Deadlines are read on the injected
 * {@link LocksClock}; parking happens in real time. With the system clock a waiter parks exactly until its
 * next deadline; with any other clock (a test's manual clock, say) it parks in slices of at most
 * {@value #SLICE_MILLIS} ms and reads the clock again, so that time advanced by hand is seen promptly. A
 * waiter with no deadline parks until it is unparked, whatever the clock.
 */
final class FlightClock {

    static final long SLICE_MILLIS = 50;

    /** Parks without a bound (until signalled). */
    static final long FOREVER = Long.MAX_VALUE;

    private final LocksClock clock;
    private final long sliceNanos;

    FlightClock(LocksClock clock) {
        this.clock = clock;
        this.sliceNanos = clock == LocksClock.system() ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(SLICE_MILLIS);
    }

    long now() {
        return clock.nanoTime();
    }

    Instant instantOf(long nanoTime) {
        return clock.toInstant(nanoTime);
    }

    /** {@code nanos}, or at most one slice with a clock other than the system's. */
    long slice(long nanos) {
        return Math.min(nanos, sliceNanos);
    }

    /**
     * Nanoseconds of {@code duration}, saturated at {@link Long#MAX_VALUE}: the one conversion of compute timeouts,
     * wait times and poll intervals (compare deadlines as {@code now - deadline >= 0}, so that one that saturated
     * never passes).
     */
    static long nanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Parks the calling thread (holding no lock) until unparked or interrupted, or for at most {@code nanos}
     * of this clock's time ({@link #FOREVER} for no bound), or one slice; it may also return spuriously, so the
     * caller looks at its state again after each return.
     */
    void park(Object blocker, long nanos) {
        if (nanos == FOREVER) {
            LockSupport.park(blocker);
        } else if (nanos > 0) {
            LockSupport.parkNanos(blocker, Math.min(nanos, sliceNanos));
        }
    }
}
