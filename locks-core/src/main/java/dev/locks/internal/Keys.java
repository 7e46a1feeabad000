package dev.locks.internal;

import dev.locks.LockRegistry;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;

/** Validation and normalisation of keys, as SPEC section 2 states them. Not an API. */
public final class Keys {

    /** How many keys an error message lists before "and N more". */
    static final int LISTED = 10;
    /** How many characters of a key an error message shows. */
    private static final int SHOWN = 64;
    private static final String[] GLOBAL = {LockRegistry.GLOBAL_LOCK_KEY};

    private Keys() {
    }

    /**
     * The limits of one acquire, so that one bad request cannot stall a shared server.
     *
     * @param maxKeys distinct keys per acquire ({@code locks.max-keys})
     * @param maxKeyLength characters per key ({@code locks.max-key-length})
     */
    public record Limits(int maxKeys, int maxKeyLength) {

        /** 1,000 keys of at most 1,024 characters: SPEC section 6. */
        public static final Limits DEFAULT = new Limits(1000, 1024);

        /** @throws IllegalArgumentException naming the limit that is not positive */
        public Limits {
            if (maxKeys <= 0) {
                throw new IllegalArgumentException("maxKeys (locks.max-keys) must be > 0, was " + maxKeys);
            }
            if (maxKeyLength <= 0) {
                throw new IllegalArgumentException(
                        "maxKeyLength (locks.max-key-length) must be > 0, was " + maxKeyLength);
            }
        }
    }

    /** {@link #normalize(Collection, Limits)} with the {@linkplain Limits#DEFAULT default limits}. */
    public static String[] normalize(Collection<String> keys) {
        return normalize(keys, Limits.DEFAULT);
    }

    /**
     * The keys to lock: validated, sorted in natural order, without duplicates; the global lock for none.
     * The returned array is the caller's to keep.
     *
     * @throws IllegalArgumentException naming the 0-based position of a {@code null}, empty, blank, too long
     *         or not well-formed key, or naming {@code locks.max-keys} when there are more distinct keys
     */
    public static String[] normalize(Collection<String> keys, Limits limits) {
        if (keys == null) {
            throw new IllegalArgumentException("keys must not be null (an empty collection means the global lock)");
        }
        int size = keys.size();
        if (size == 0) {
            return GLOBAL.clone();
        }
        if (size == 1) {
            return new String[] {requireValid(keys.iterator().next(), 0, limits)};
        }
        String[] sorted = new String[size];
        Iterator<String> it = keys.iterator();
        boolean ascending = true;
        for (int i = 0; i < size; i++) {
            sorted[i] = requireValid(it.next(), i, limits);
            ascending = ascending && (i == 0 || sorted[i - 1].compareTo(sorted[i]) < 0);
        }
        if (ascending && size <= limits.maxKeys()) {
            return sorted; // given sorted and distinct already (a SortedSet, or keys a caller keeps in order)
        }
        Arrays.sort(sorted);
        int distinct = 1;
        for (int i = 1; i < size; i++) {
            if (!sorted[i].equals(sorted[distinct - 1])) {
                sorted[distinct++] = sorted[i];
            }
        }
        if (distinct > limits.maxKeys()) {
            throw new IllegalArgumentException("an acquire takes at most " + limits.maxKeys()
                    + " distinct keys (locks.max-keys), this one asked for " + distinct + ": "
                    + describe(Arrays.asList(sorted).subList(0, distinct)));
        }
        return distinct == size ? sorted : Arrays.copyOf(sorted, distinct);
    }

    /**
     * Returns {@code key} if it is usable and at most {@code limits.maxKeyLength()} characters long.
     *
     * @throws IllegalArgumentException naming {@code position} if it is not
     */
    public static String requireValid(String key, int position, Limits limits) {
        requireValid(key, position);
        if (key.length() > limits.maxKeyLength()) {
            throw new IllegalArgumentException("key at position " + position + " is " + key.length()
                    + " characters long, more than locks.max-key-length (" + limits.maxKeyLength() + "): "
                    + show(key));
        }
        return key;
    }

    /**
     * Returns {@code key} if it is usable: not {@code null}, empty or blank, and well-formed UTF-16 (an
     * unpaired surrogate would map two different keys onto one stored key).
     *
     * @throws IllegalArgumentException naming {@code position} if it is not
     */
    public static String requireValid(String key, int position) {
        if (key == null) {
            throw new IllegalArgumentException("key at position " + position + " is null");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("key at position " + position + " is "
                    + (key.isEmpty() ? "empty" : "blank") + ": " + show(key));
        }
        int unpaired = unpairedSurrogate(key);
        if (unpaired >= 0) {
            throw new IllegalArgumentException("key at position " + position
                    + " is not well-formed UTF-16: an unpaired surrogate \\u"
                    + Integer.toHexString(key.charAt(unpaired)).toUpperCase() + " at index " + unpaired + " in "
                    + show(key));
        }
        return key;
    }

    /** The index of the first surrogate that is not half of a pair, or -1. */
    private static int unpairedSurrogate(String key) {
        for (int i = 0, n = key.length(); i < n; i++) {
            char c = key.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * Keys for a message: at most {@value #LISTED} (then "and N more"), each cut to a readable length, so that
     * a huge request never makes a huge message.
     */
    public static String describe(Collection<String> keys) {
        StringBuilder text = new StringBuilder("[");
        int listed = 0;
        for (String key : keys) {
            if (listed == LISTED) {
                text.append(", and ").append(keys.size() - LISTED).append(" more");
                break;
            }
            text.append(listed++ == 0 ? "" : ", ").append(shown(key, ""));
        }
        return text.append(']').toString();
    }

    /** One key for a message: quoted, unprintable characters escaped, cut after {@value #SHOWN} characters. */
    static String show(String key) {
        return shown(key, "\"");
    }

    /** A key for a message between {@code quotes}, escaped and cut. */
    private static String shown(String key, String quotes) {
        if (key == null) {
            return "null";
        }
        StringBuilder text = new StringBuilder(quotes);
        int end = Math.min(key.length(), SHOWN);
        for (int i = 0; i < end; i++) {
            char c = key.charAt(i);
            if (Character.isSurrogate(c) || Character.isISOControl(c)) {
                text.append(String.format("\\u%04X", (int) c));
            } else {
                text.append(c);
            }
        }
        text.append(quotes);
        if (key.length() > SHOWN) {
            text.append("... (").append(key.length()).append(" characters)");
        }
        return text.toString();
    }
}
