package dev.locks.internal;

import dev.locks.LockRegistry;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;

/** Validation and normalisation of keys, as SPEC section 2 states them. Not an API. */
public final class Keys {

    private static final String[] GLOBAL = {LockRegistry.GLOBAL_LOCK_KEY};

    private Keys() {
    }

    /**
     * The keys to lock: validated, sorted in natural order, without duplicates; the global lock for none.
     * The returned array is the caller's to keep.
     *
     * @throws IllegalArgumentException naming the 0-based position of a {@code null}, empty or blank key
     */
    public static String[] normalize(Collection<String> keys) {
        if (keys == null) {
            throw new IllegalArgumentException("keys must not be null (an empty collection means the global lock)");
        }
        int size = keys.size();
        if (size == 0) {
            return GLOBAL.clone();
        }
        if (size == 1) {
            return new String[] {requireValid(keys.iterator().next(), 0)};
        }
        String[] sorted = new String[size];
        Iterator<String> it = keys.iterator();
        for (int i = 0; i < size; i++) {
            sorted[i] = requireValid(it.next(), i);
        }
        Arrays.sort(sorted);
        int distinct = 1;
        for (int i = 1; i < size; i++) {
            if (!sorted[i].equals(sorted[distinct - 1])) {
                sorted[distinct++] = sorted[i];
            }
        }
        return distinct == size ? sorted : Arrays.copyOf(sorted, distinct);
    }

    /**
     * Returns {@code key} if it is usable.
     *
     * @throws IllegalArgumentException naming {@code position} if it is {@code null}, empty or blank
     */
    public static String requireValid(String key, int position) {
        if (key == null) {
            throw new IllegalArgumentException("key at position " + position + " is null");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("key at position " + position + " is "
                    + (key.isEmpty() ? "empty" : "blank") + ": \"" + key + "\"");
        }
        return key;
    }
}
