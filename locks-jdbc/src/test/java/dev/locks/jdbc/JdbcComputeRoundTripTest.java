package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.contract.ComputeCacheCallers;
import dev.locks.contract.ComputeCacheStall;
import dev.locks.jdbc.test.CountingDataSource;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The round trips the javadoc of {@link JdbcComputeCache} promises, counted as statements on the data sources;
 * and one listening connection per node for its lock registry and compute cache together.
 */
class JdbcComputeRoundTripTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(1);

    private final ComputeCacheCallers callers = new ComputeCacheCallers();
    private CountingDataSource counting;
    private CountingDataSource otherCounting;
    private JdbcComputeCache cache;
    private JdbcComputeCache other;

    @BeforeEach
    void setUp() {
        counting = new CountingDataSource(postgres.dataSource());
        otherCounting = new CountingDataSource(postgres.server().dataSource());
        cache = JdbcComputeCache.builder(counting).initializeSchema(true).build();
        other = JdbcComputeCache.builder(otherCounting).build();
        await().atMost(BOUND).until(() -> cache.store().listenerConfirmations() > 0
                && other.store().listenerConfirmations() > 0 && cache.store().connections().idleCount() == 2);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        callers.close();
        cache.close();
        other.close();
    }

    @Test
    void aMissShouldCostItsComputerThreeStatementsAndAHitOne() {
        counting.reset();
        assertThat(cache.fetchOrCompute("k", TTL, () -> "v")).isEqualTo("v");
        assertThat(statements(counting)).containsExactly(
                "SELECT value FROM locks_value WHERE value_key = locks_key(?) AND (expires_at IS NULL OR expires_at > clock_timestamp())",
                "SELECT o_kind, o_value, o_miss, o_turn, o_hint, o_ttl_ms, o_left_ms, o_computer, o_started_at,"
                        + " o_outcome, o_class, o_message FROM locks_compute_claim(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                "SELECT locks_compute_complete(?, ?, ?, ?, ?, ?, ?, ?, ?)"); // the last: a refresh's age, a stale window

        counting.reset();
        assertThat(cache.fetchOrCompute("k", TTL, () -> "other")).isEqualTo("v");
        assertThat(statements(counting)).hasSize(1);
    }

    @Test
    void aWaiterOnAnotherNodeShouldCostItTwoStatementsAndOneMoreWhenTheValueLands() {
        ComputeCacheStall<String> computation = ComputeCacheStall.returning("v");
        Future<String> computer = callers.start("alice", () -> cache.fetchOrCompute("k", TTL, computation));
        computation.awaitEntered();
        otherCounting.reset();
        Future<String> waiter = callers.start("carol", () -> other.fetchOrCompute("k", TTL, () -> "carol"));
        ComputeCacheCallers.awaitWaiters(other, "k", 1);
        assertThat(statements(otherCounting)).as("its look-up and its claim").hasSize(2);

        computation.release();

        assertThat(ComputeCacheCallers.result(computer)).isEqualTo("v");
        assertThat(ComputeCacheCallers.result(waiter)).isEqualTo("v");
        assertThat(statements(otherCounting)).as("and the value's read, woken by the notice").hasSize(3);
    }

    @Test
    void aRegistryAndACacheOnOneDataSourceShouldShareOneListeningConnection() {
        CountingDataSource shared = new CountingDataSource(postgres.dataSource());
        // the dialect named, as locks.jdbc.dialect does: a detected one costs each builder a connection of its own
        try (JdbcLockRegistry registry = JdbcLockRegistry.builder(shared).dialect("postgresql")
                .cleanupInterval(Duration.ZERO).build();
                JdbcComputeCache sharing = JdbcComputeCache.builder(shared).dialect("postgresql").build()) {
            await().atMost(BOUND).until(() -> registry.store().listenerConfirmations() > 0
                    && sharing.store().listenerConfirmations() > 0 && registry.store().connections().idleCount() == 2
                    && sharing.store().connections().idleCount() == 2);

            assertThat(shared.opened()).as("2 + 2 statement connections, 1 listening").isEqualTo(5);
            assertThat(shared.executed()).contains("LISTEN locks_released", "LISTEN locks_computed");
        }
    }

    /**
     * Every statement but the listener's own (LISTEN, and its keep-alive probe after 5 s of silence) and the session
     * set-up of a connection as it opens (once per connection, not per call).
     */
    private static List<String> statements(CountingDataSource dataSource) {
        return dataSource.executed().stream().filter(sql -> !sql.startsWith("LISTEN ") && !sql.equals("SELECT 1")
                && !sql.equals(OwnConnections.SESSION))
                .toList();
    }
}
