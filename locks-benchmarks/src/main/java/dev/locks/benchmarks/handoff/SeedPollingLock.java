package dev.locks.benchmarks.handoff;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The seed's lock design, as it waited: one attempt is a {@code putIfAbsent} of the key; on failure the caller
 * sleeps its retry interval plus a jitter, {@code 10 + uniform(1..10)} ms (the seed's default interval and its
 * whole-millisecond jitter), and tries again until it gets the key. Nothing wakes a waiter early. Only for
 * comparison: the release trusts its caller, as the seed's did.
 */
public final class SeedPollingLock {

    /** The seed's default retry interval. */
    public static final int INTERVAL_MILLIS = 10;

    private final ConcurrentHashMap<String, Thread> table = new ConcurrentHashMap<>();

    /** Takes {@code key}, polling every 11 to 20 ms while another thread holds it. */
    public void lock(String key) throws InterruptedException {
        Thread self = Thread.currentThread();
        while (table.putIfAbsent(key, self) != null) {
            Thread.sleep(INTERVAL_MILLIS + 1 + ThreadLocalRandom.current().nextInt(INTERVAL_MILLIS));
        }
    }

    public void unlock(String key) {
        table.remove(key);
    }
}
