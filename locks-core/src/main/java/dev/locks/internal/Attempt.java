package dev.locks.internal;

/**
 * What one attempt to take an acquire's keys came to: the lease it took, or what blocked it. The leases are
 * themselves the taken cases, so that a taken attempt costs no object more than its lease; a
 * {@link SoloLease} is a {@link Blocker} too, and only this type tells which of the two an attempt returned.
 */
sealed interface Attempt permits SoloLease, TableLease, SharedLease, Attempt.Blocked {

    /**
     * Stopped at the sorted key of index {@code index} by {@code by}; everything the attempt took was rolled
     * back.
     */
    record Blocked(Blocker by, int index) implements Attempt {
    }
}
