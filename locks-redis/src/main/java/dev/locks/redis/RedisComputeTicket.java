package dev.locks.redis;

import dev.locks.ComputeTicket;

/**
 * What a {@link ComputeTicket} of the Redis backend names: a miss and one of its computers. Its id is
 * {@code <miss>/<turn>/<computer>}, so that a ticket works on any node.
 *
 * @param miss the miss id
 * @param turn 0 for the first computer, more for one that took over
 * @param computer the computer id, unique across nodes
 */
record RedisComputeTicket(String miss, int turn, String computer) {

    private static final char SEPARATOR = '/';

    /** The ticket's parts, or {@code null} for an id this backend did not issue. */
    static RedisComputeTicket of(ComputeTicket ticket) {
        String id = ticket.id();
        if (ticket.key() == null || id == null) {
            return null;
        }
        int first = id.indexOf(SEPARATOR);
        int second = id.indexOf(SEPARATOR, first + 1);
        if (first <= 0 || second <= first + 1 || second == id.length() - 1
                || id.indexOf(SEPARATOR, second + 1) >= 0) {
            return null;
        }
        try {
            return new RedisComputeTicket(id.substring(0, first),
                    Integer.parseInt(id.substring(first + 1, second)), id.substring(second + 1));
        } catch (NumberFormatException notOurs) {
            return null;
        }
    }

    ComputeTicket toTicket(String key) {
        return new ComputeTicket(key, miss + SEPARATOR + turn + SEPARATOR + computer);
    }

    boolean promoted() {
        return turn > 0;
    }
}
