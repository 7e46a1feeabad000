package dev.locks.test;

import dev.locks.LocksClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test advances it, so that tests of timeouts never sleep for them. */
public final class ManualClock implements LocksClock {

    private final Instant origin;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    public ManualClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    public ManualClock(Instant origin) {
        this.origin = origin;
    }

    /** Moves time forward. */
    public ManualClock advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
        return this;
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public Instant instant() {
        return origin.plusNanos(nanos.get());
    }
}
