package dev.locks.benchmarks.proto;

import dev.locks.LocksClock;
import java.time.Instant;

/**
 * Prototype of a coarse {@link LocksClock}: {@link #nanoTime()} reads a volatile field that a daemon thread
 * refreshes every millisecond, so an acquire pays a field read instead of {@code System.nanoTime()}. Lock
 * timeouts are seconds, so a millisecond of resolution loses nothing; the price is one thread waking 1,000
 * times a second (a real one would sleep while the registry is idle). Plugs into today's builders through
 * {@code clock(...)}: no engine change needed to measure it.
 */
public final class CachedClock implements LocksClock, AutoCloseable {

    private volatile long now = System.nanoTime();
    private volatile boolean running = true;

    public CachedClock() {
        Thread ticker = new Thread(() -> {
            while (running) {
                now = System.nanoTime();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "cached-clock");
        ticker.setDaemon(true);
        ticker.start();
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public Instant instant() {
        return Instant.now();
    }

    @Override
    public void close() {
        running = false;
    }
}
