package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeTicket;
import dev.locks.spi.RemoteComputeStore.Ticket;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ids of the tickets of a cache across nodes (moved from the Redis store's tests with the code). */
class RemoteTicketsTest {

    @Test
    void ticketIdsShouldRoundTripAndForeignOnesBeRefused() {
        Ticket ticket = new Ticket("ab12.3", 2, "ab12.4");

        assertThat(RemoteTickets.of(RemoteTickets.toTicket(ticket, "k"))).isEqualTo(ticket);
        for (String foreign : List.of("", "forged", "m/0", "m/x/c", "/0/c", "m//c", "m/0/", "m/0/c/d")) {
            assertThat(RemoteTickets.of(new ComputeTicket("k", foreign))).as(foreign).isNull();
        }
    }
}
