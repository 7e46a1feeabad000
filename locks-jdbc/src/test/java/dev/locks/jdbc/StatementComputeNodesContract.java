package dev.locks.jdbc;

import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeOptions;
import dev.locks.contract.ComputeCacheStall;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link SqlComputeNodesContract} on a database without notifications (each node hears the other's notices by
 * polling the notices table), and what its tables show (times as the database's milliseconds).
 */
abstract class StatementComputeNodesContract extends SqlComputeNodesContract {

    /**
     * Without notifications, a value computed on node A reaches node B's waiter by the notice A writes and B's one
     * poll of the notices table: neither B's own look (after a minute) nor the end of A's compute lock (a minute)
     * comes within the test's patience.
     */
    @Test
    void aValueShouldReachTheWaiterOfAnotherNodeByItsNoticeAlone() throws Exception {
        ComputeOptions patient = DEFAULTS.withComputeTimeout(Duration.ofMinutes(1));
        try (JdbcComputeCache one = patientNode(patient, database().dataSource());
                JdbcComputeCache two = patientNode(patient, database().otherNode())) {
            ComputeCacheStall<String> stall = ComputeCacheStall.returning("v");
            Future<String> computer = callers.start("alice", () -> one.fetchOrCompute("n", TTL, stall));
            stall.awaitEntered();
            Future<String> waiter = callers.start("bob", () -> two.fetchOrCompute("n", TTL, () -> "bob"));
            awaitWaiters(two, "n", 1);

            stall.release();

            assertThat(result(computer)).isEqualTo("v");
            assertThat(result(waiter)).isEqualTo("v");
        }
    }

    private static JdbcComputeCache patientNode(ComputeOptions defaults, DataSource dataSource) {
        JdbcComputeCache node = JdbcComputeCache.builder(dataSource).defaultOptions(defaults)
                .pollInterval(Duration.ofMinutes(1)).noticePollInterval(Duration.ofMillis(50)).build();
        await().atMost(Duration.ofSeconds(10)).until(() -> node.store().listenerConfirmations() > 0);
        return node;
    }

    @Test
    void valueShouldExpireOnEveryNodeAfterItsTtlByTheDatabasesClock() {
        AtomicInteger computations = new AtomicInteger();
        Duration ttl = Duration.ofMillis(400);
        assertThat(a.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v1");
        assertThat(database().queryLong("SELECT expires_at - stored_at FROM locks_value")).isEqualTo(ttl.toMillis());
        long expires = database().queryLong("SELECT expires_at FROM locks_value");
        assertThat(b.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v1");

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> b.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet()), "v2"::equals);

        assertThat(database().queryLong("SELECT MIN(stored_at) FROM locks_value")).as("by the database's clock")
                .isGreaterThanOrEqualTo(expires);
        assertThat(a.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v2");
    }
}
