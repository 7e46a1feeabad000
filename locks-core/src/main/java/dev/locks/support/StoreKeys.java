package dev.locks.support;

import dev.locks.internal.Keys;
import dev.locks.spi.RemoteLockStore;
import java.util.Collection;

/**
 * The checks and descriptions of keys that a {@link dev.locks.spi.RemoteLockStore} shares with its registry, so
 * that a store's own operations (listing one key, forcing one free) refuse exactly the keys an acquire refuses,
 * and its error messages show keys as the registry's do.
 */
public final class StoreKeys {

    private StoreKeys() {
    }

    /**
     * {@code key} when it is usable as a key: not {@code null}, empty or blank, and well-formed UTF-16.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static String requireValid(String key) {
        return Keys.requireValid(key, 0);
    }

    /** The keys for a message: at most ten (then "and N more"), each cut to a readable length. */
    public static String describe(Collection<String> keys) {
        return Keys.describe(keys);
    }

    /**
     * Checks the arguments of a store's {@link RemoteLockStore#tryAcquireShared}: some keys, and
     * {@link RemoteLockStore#SHARED} or more than one permit.
     *
     * @throws IllegalArgumentException otherwise
     */
    public static void requireSharedAcquire(Collection<String> keys, int permits) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("no keys to acquire");
        }
        if (permits != RemoteLockStore.SHARED && permits < 2) {
            throw new IllegalArgumentException("permits must be SHARED or > 1, was " + permits);
        }
    }
}
