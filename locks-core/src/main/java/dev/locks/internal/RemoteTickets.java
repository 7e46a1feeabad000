package dev.locks.internal;

import dev.locks.ComputeTicket;
import dev.locks.spi.RemoteComputeStore.Ticket;

/**
 * The {@link ComputeTicket} of a cache across nodes names a miss and one of its computers ({@link Ticket}): its id
 * is {@code <miss>/<turn>/<computer>}, so that a ticket works on any node. Not an API.
 */
final class RemoteTickets {

    private static final char SEPARATOR = '/';

    private RemoteTickets() {
    }

    /** The ticket's parts, or {@code null} for an id that no remote cache issued. */
    public static Ticket of(ComputeTicket ticket) {
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
            return new Ticket(id.substring(0, first), Integer.parseInt(id.substring(first + 1, second)),
                    id.substring(second + 1));
        } catch (NumberFormatException notOurs) {
            return null;
        }
    }

    /** The ticket of {@code key} that names {@code ticket}. */
    public static ComputeTicket toTicket(Ticket ticket, String key) {
        return new ComputeTicket(key, ticket.miss() + SEPARATOR + ticket.turn() + SEPARATOR + ticket.computer());
    }
}
