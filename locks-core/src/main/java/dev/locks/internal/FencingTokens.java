package dev.locks.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Issues fencing tokens: each greater than every token issued before for any of the same keys.
 *
 * <p>One counter for the whole registry would satisfy that, but every acquire on every thread would then
 * write the same cache line. Instead, keys are spread over padded striped counters: a token is one more
 * than the highest counter of its keys' stripes, and raises each of those stripes to itself. A token
 * issued before for key {@code k} raised the stripe of {@code k} before its lease was handed out, hence
 * before {@code k} could be released and taken again, so the next token for {@code k} is greater. Tokens
 * of unrelated keys are not ordered with each other, and need not be.
 */
final class FencingTokens {

    private static final int STRIPES = 64;
    /** 16 longs = 128 bytes between used slots: no two stripes share a cache line (or its neighbour). */
    private static final int SPACING = 16;

    private final AtomicLongArray counters = new AtomicLongArray(STRIPES * SPACING);

    /** A new token for a lease on {@code key}, which the caller holds. */
    long issue(String key) {
        return counters.incrementAndGet(slot(key));
    }

    /** A new token for a lease on {@code keys}, which the caller holds. */
    long issue(String[] keys) {
        if (keys.length == 1) {
            return issue(keys[0]);
        }
        long highest = 0;
        for (String key : keys) {
            highest = Math.max(highest, counters.get(slot(key)));
        }
        long token = highest + 1;
        for (String key : keys) {
            raise(slot(key), token);
        }
        return token;
    }

    private void raise(int slot, long token) {
        long current;
        do {
            current = counters.get(slot);
        } while (current < token && !counters.compareAndSet(slot, current, token));
    }

    private static int slot(String key) {
        return ((key.hashCode() * 0x9E3779B9) >>> 26) * SPACING;
    }
}
