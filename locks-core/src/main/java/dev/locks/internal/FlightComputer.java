package dev.locks.internal;

import dev.locks.ComputeTicket;

/**
 * One computer of a miss: the original ({@code turn} 0) or a waiter promoted because the one before it
 * stalled. Its ticket id names the miss and the turn. Not an API.
 *
 * @param id the id of its {@link ComputeTicket}
 * @param name a readable description (the thread's name)
 * @param startedNanos when it became the computer, on the cache's clock
 * @param turn 0 for the original computer, then 1, 2, ... for each promotion
 */
record FlightComputer(String id, String name, long startedNanos, int turn) {

    private static final String SEPARATOR = "/";

    static FlightComputer of(String missId, int turn, String name, long startedNanos) {
        return new FlightComputer(missId + SEPARATOR + turn, name, startedNanos, turn);
    }

    /** Whether it was promoted from waiter, rather than the miss's first computer. */
    public boolean promoted() {
        return turn > 0;
    }

    /** Whether {@code ticket} was given to a promoted computer (by its id, without looking the miss up). */
    public static boolean promoted(ComputeTicket ticket) {
        return !ticket.id().endsWith(SEPARATOR + 0);
    }

    /** Whether {@code ticket} was given to a computer of the miss {@code missId}. */
    static boolean isOfMiss(ComputeTicket ticket, String missId) {
        String id = ticket.id();
        return id.length() > missId.length() && id.startsWith(missId) && id.charAt(missId.length()) == '/';
    }

    /** The miss id a ticket names (all of it, for an id this class did not make). */
    static String missOf(ComputeTicket ticket) {
        String id = ticket.id();
        int separator = id.lastIndexOf(SEPARATOR);
        return separator < 0 ? id : id.substring(0, separator);
    }

    /** The same computer, started (timed) from {@code nanos} on. */
    FlightComputer restartedAt(long nanos) {
        return new FlightComputer(id, name, nanos, turn);
    }

    ComputeTicket ticket(String key) {
        return new ComputeTicket(key, id);
    }
}
