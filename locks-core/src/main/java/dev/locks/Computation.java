package dev.locks;

import java.time.Instant;

/**
 * One miss being computed, as operations see it.
 *
 * @param key the key being computed
 * @param computer a readable description of the current computer (its thread, and node where distributed)
 * @param waiters how many callers wait for the result (on this node)
 * @param startedAt when the current computer started
 */
public record Computation(String key, String computer, int waiters, Instant startedAt) {
}
