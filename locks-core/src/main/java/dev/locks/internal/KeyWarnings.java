package dev.locks.internal;

import dev.locks.LocksClock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Which {@code WARN}s about a key to log: the first per key and minute on this node. Remembers at most
 * {@value #REMEMBERED} keys (then starts afresh). Thread-safe. Not an API.
 */
final class KeyWarnings {

    static final int REMEMBERED = 10_000;
    private static final long QUIET_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final LocksClock clock;
    private final ConcurrentHashMap<String, Long> warned = new ConcurrentHashMap<>();

    KeyWarnings(LocksClock clock) {
        this.clock = clock;
    }

    /** Whether to log a warning about {@code key} now: none was logged for it in the last minute. */
    boolean shouldWarn(String key) {
        long now = clock.nanoTime();
        Long last = warned.get(key);
        if (last != null && now - last < QUIET_NANOS) {
            return false;
        }
        if (last == null && warned.size() >= REMEMBERED) {
            warned.clear();
        }
        return last == null ? warned.putIfAbsent(key, now) == null : warned.replace(key, last, now);
    }
}
