package dev.locks.jdbc;

import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.failure;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeCache;
import dev.locks.ComputeFailedException;
import dev.locks.ComputeOptions;
import dev.locks.contract.ComputeCacheStall;
import dev.locks.contract.ComputeNodesContract;
import dev.locks.jdbc.test.StatementDatabase;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two nodes in one JVM, each a cache on a data source of its own, on one database without notifications, in real
 * time: the {@link ComputeNodesContract} (each node hears the other's notices by polling the notices table), and
 * what the tables show of it.
 */
abstract class StatementComputeNodesContract extends ComputeNodesContract {

    /** The database of the test class. */
    abstract StatementDatabase database();

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, boolean first) {
        JdbcComputeCache node = JdbcComputeCache.builder(first ? database().dataSource() : database().otherNode())
                .initializeSchema(first).defaultOptions(defaults).build();
        await().atMost(Duration.ofSeconds(10)).until(() -> node.store().listenerConfirmations() > 0);
        return node;
    }

    @Override
    protected boolean joinsComputationOf(ComputeCache node, String key) {
        return ((JdbcComputeCache) node).joinsComputationOf(key);
    }

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

    /**
     * Two nodes that miss a brand-new key at the same moment both insert its record row: one of them meets the
     * other's row (a duplicate key, or a deadlock or lock wait on MariaDB), which the store runs again inside the
     * call. Round after round of new keys, four callers per node: each key is computed once, every caller gets that
     * value, and no database error reaches a caller.
     */
    @Test
    void newKeysMissedOnBothNodesAtOnceShouldBeComputedOnceWithoutAnError() throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 40; round++) {
                String key = "race-" + round;
                AtomicInteger computations = new AtomicInteger();
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(8);
                java.util.List<Future<String>> results = new java.util.ArrayList<>();
                for (int caller = 0; caller < 8; caller++) {
                    ComputeCache node = caller % 2 == 0 ? a : b;
                    results.add(pool.submit(() -> {
                        start.await();
                        return node.fetchOrCompute(key, TTL, () -> key + "/" + computations.incrementAndGet());
                    }));
                }
                for (Future<String> one : results) {
                    assertThat(result(one)).isEqualTo(key + "/1");
                }
                assertThat(computations).hasValue(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static JdbcComputeCache patientNode(ComputeOptions defaults, javax.sql.DataSource dataSource) {
        JdbcComputeCache node = JdbcComputeCache.builder(dataSource).defaultOptions(defaults)
                .pollInterval(Duration.ofMinutes(1)).noticePollInterval(Duration.ofMillis(50)).build();
        await().atMost(Duration.ofSeconds(10)).until(() -> node.store().listenerConfirmations() > 0);
        return node;
    }

    @Test
    void nullResultShouldReachEveryNodeAndBeStoredNowhere() {
        ComputeCacheStall<String> nothing = ComputeCacheStall.returning(null);
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, nothing));
        nothing.awaitEntered();
        Future<String> other = callers.start("bob", () -> b.fetchOrCompute("k", TTL, () -> "bob"));
        awaitWaiters(b, "k", 1);

        nothing.release();

        assertThat(result(computer)).isNull();
        assertThat(result(other)).isNull();
        assertThat(database().queryLong("SELECT COUNT(*) FROM locks_value")).isZero();
        assertThat(b.fetchOrCompute("k", TTL, () -> "v")).isEqualTo("v");
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

    /**
     * A key (SPEC 2 allows U+0000) and an exception message may hold U+0000: the failure must still reach the
     * waiters of the other node, key and message exact, and a value under such a key must be stored and found under
     * that key only; a message of a megabyte reaches them too.
     */
    @Test
    void aNulInTheKeyOrTheMessageShouldReachTheOtherNodeAsIs() {
        String key = "k\u0000nul\u0001";
        IllegalStateException boom = new IllegalStateException("bo\u0000om \u00010 " + "x".repeat(1 << 20));
        ComputeCacheStall<String> failing = ComputeCacheStall.throwing(boom);
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute(key, TTL, failing));
        failing.awaitEntered();
        Future<String> other = callers.start("bob", () -> b.fetchOrCompute(key, TTL, () -> "bob"));
        awaitWaiters(b, key, 1);

        failing.release();

        assertThat(failure(computer)).isSameAs(boom);
        assertThat(failure(other)).isInstanceOfSatisfying(ComputeFailedException.class, failed -> {
            assertThat(failed.key()).isEqualTo(key);
            assertThat(failed.originalMessage()).startsWith("bo\u0000om \u00010 xxx");
        });
        assertThat(a.fetchOrCompute(key, TTL, () -> "nul")).isEqualTo("nul");
        assertThat(b.fetchOrCompute(key, TTL, () -> "other")).isEqualTo("nul");
        assertThat(b.fetchOrCompute("k\u0001" + "0nul\u0001", TTL, () -> "distinct")).isEqualTo("distinct");
        assertThat(b.fetchOrCompute("k\u0000nul\u0001 ", TTL, () -> "trailing space")).isEqualTo("trailing space");
        String longKey = "\u00e9".repeat(3000);
        assertThat(a.fetchOrCompute(longKey, TTL, () -> "long")).isEqualTo("long");
        assertThat(b.fetchOrCompute(longKey, TTL, () -> "other")).isEqualTo("long");
        assertThat(b.fetchOrCompute(longKey + "!", TTL, () -> "longer")).isEqualTo("longer");
    }
}
