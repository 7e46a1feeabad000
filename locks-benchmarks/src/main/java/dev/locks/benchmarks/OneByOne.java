package dev.locks.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * Several keys with a library that has no multi-key call, as its user takes them: one by one in the (sorted)
 * order given, released in reverse.
 */
public final class OneByOne {

    private OneByOne() {
    }

    /** Locks each key's {@link Lock} (Spring Integration's registries), then unlocks them; returns the count. */
    public static int lockAll(Function<String, Lock> obtain, String[] keys) {
        Lock[] locks = new Lock[keys.length];
        for (int i = 0; i < keys.length; i++) {
            locks[i] = obtain.apply(keys[i]);
            locks[i].lock();
        }
        for (int i = locks.length - 1; i >= 0; i--) {
            locks[i].unlock();
        }
        return locks.length;
    }

    /**
     * Takes each key from ShedLock's {@code provider} for {@code lease} (ShedLock never waits: a key it does not
     * get fails the cycle, after releasing what was taken), then releases them; returns the count.
     */
    public static int shedLockAll(LockProvider provider, String[] keys, Duration lease) {
        SimpleLock[] held = new SimpleLock[keys.length];
        Instant now = Instant.now();
        for (int i = 0; i < held.length; i++) {
            held[i] = provider.lock(new LockConfiguration(now, keys[i], lease, Duration.ZERO)).orElse(null);
            if (held[i] == null) {
                unlockAll(held, i);
                throw new IllegalStateException("ShedLock did not get " + keys[i]);
            }
        }
        unlockAll(held, held.length);
        return held.length;
    }

    private static void unlockAll(SimpleLock[] held, int count) {
        for (int i = count - 1; i >= 0; i--) {
            held[i].unlock();
        }
    }
}
