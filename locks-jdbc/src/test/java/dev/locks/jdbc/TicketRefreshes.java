package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.spi.RemoteLockStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A node's bulk refresh of its waiters' tickets ({@link RemoteLockStore#refreshTickets}), on every SQL database: it
 * extends the tickets still queued, by the database's clock, and never places one again that its waiter took out
 * meanwhile (issue 24: one call per node, not one per waiter; 1,000 waiters on MariaDB spent 55 of their 70
 * statements per acquisition refreshing their own tickets).
 */
final class TicketRefreshes {

    /** When a ticket row expires, as its database's column reads. */
    @FunctionalInterface
    interface ExpiresAt {
        Instant read(ResultSet row, int column) throws SQLException;
    }

    private TicketRefreshes() {
    }

    static void shouldExtendTicketsStillQueuedAndNeverPlaceOneAgain(JdbcStore store, DataSource dataSource,
            ExpiresAt expiresAt) throws SQLException {
        store.enqueue(List.of("refresh-k1", "refresh-k2"), new RemoteLockStore.Ticket("refresh-t1", 0, 1_000));
        store.enqueue(List.of("refresh-k1"), new RemoteLockStore.Ticket("refresh-t2", 0, 1_000));
        store.dequeue(List.of("refresh-k1"), "refresh-t2");
        assertThat(store.refreshesTickets()).isTrue();

        store.refreshTickets(List.of(new RemoteLockStore.Queued(List.of("refresh-k1", "refresh-k2"), "refresh-t1"),
                new RemoteLockStore.Queued(List.of("refresh-k1"), "refresh-t2")), 600_000);

        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT ticket_id, expires_at FROM locks_waiter WHERE ticket_id LIKE 'refresh-%'")) {
            List<String> tickets = new ArrayList<>();
            while (rows.next()) {
                tickets.add(rows.getString(1));
                assertThat(expiresAt.read(rows, 2)).as("extended by ten minutes")
                        .isAfter(Instant.now().plus(Duration.ofMinutes(5)));
            }
            assertThat(tickets).as("t1 on both keys; t2, taken out, not placed again")
                    .containsExactly("refresh-t1", "refresh-t1");
        }
    }
}
