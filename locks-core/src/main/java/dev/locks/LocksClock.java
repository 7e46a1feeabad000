package dev.locks;

import java.time.Instant;

/**
 * The time source of a registry or cache. Inject a controllable one in tests, so that tests of timeouts
 * advance time instead of sleeping for it.
 */
public interface LocksClock {

    /** Monotonic nanoseconds, for durations: lock timeouts, wait times, compute timeouts. */
    long nanoTime();

    /** The wall-clock time, for the timestamps that operations see. */
    Instant instant();

    /** The wall-clock time of a {@link #nanoTime()} reading taken on this clock. */
    default Instant toInstant(long nanoTime) {
        return instant().minusNanos(nanoTime() - nanoTime);
    }

    /** {@link System#nanoTime()} and {@link Instant#now()}. */
    static LocksClock system() {
        return SystemClock.INSTANCE;
    }
}

/** The system clock. */
enum SystemClock implements LocksClock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Instant instant() {
        return Instant.now();
    }
}
