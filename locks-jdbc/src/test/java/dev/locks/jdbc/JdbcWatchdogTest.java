package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The watchdog keeps a live holder's lease through a burst of killed connections (issue 27, observation 15): every
 * backend of the library is terminated again and again for 2.5 s while the database stays up; a renewal that failed
 * is tried again until it gets through, so the holder of a 3 s lease still holds its key well after 3 s.
 */
class JdbcWatchdogTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(30);

    private JdbcLockRegistry holder;
    private JdbcLockRegistry other;

    @AfterEach
    void tearDown() {
        holder.close();
        other.close();
    }

    @Test
    void aLiveHolderShouldKeepItsKeyThroughABurstOfTerminatedConnections() throws Exception {
        holder = JdbcLockRegistry.builder(postgres.server().dataSource()).initializeSchema(true).watchdog(true)
                .timeout(Duration.ofSeconds(1)).cleanupInterval(Duration.ZERO).build();
        other = JdbcLockRegistry.builder(postgres.server().dataSource()).timeout(Duration.ofSeconds(1))
                .cleanupInterval(Duration.ZERO).build();
        await().atMost(BOUND).until(() -> holder.store().connections().idleCount() == 2);

        try (Lease lease = holder.acquire(List.of("long"),
                AcquireOptions.defaults().withLockTimeout(Duration.ofSeconds(3)))) {
            long start = System.nanoTime();
            try (Connection admin = postgres.server().connect(); Statement statement = admin.createStatement()) {
                while (System.nanoTime() - start < Duration.ofMillis(2500).toNanos()) {
                    statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                            + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
                    Thread.sleep(20);
                }
            }
            while (System.nanoTime() - start < Duration.ofSeconds(6).toNanos()) {
                assertThat(lease.isHeld()).as("held at %d ms", (System.nanoTime() - start) / 1_000_000).isTrue();
                Thread.sleep(100);
            }
            Optional<Lease> taken = other.tryAcquire(List.of("long"));
            assertThat(taken).as("another node cannot take a live holder's key").isEmpty();
            assertThat(lease.isHeld()).isTrue();
        }
    }
}
