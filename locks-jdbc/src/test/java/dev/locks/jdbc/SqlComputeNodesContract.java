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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two nodes in one JVM, each a cache on a data source of its own, on one database of any dialect, in real time: the
 * {@link ComputeNodesContract}, and what the tables show of it (no value stored for a null result, keys and messages
 * the database's text could not hold as they are, long keys, a stampede of first misses on both nodes).
 */
abstract class SqlComputeNodesContract extends ComputeNodesContract {

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

    /**
     * Issue 27, observation 7: PostgreSQL's text refuses U+0000, which a key (SPEC 2 allows it) and an exception
     * message may hold: the failure must still reach the waiters of the other node, key and message exact, and a
     * value under such a key must be stored and found under that key only.
     */
    @Test
    void aNulInTheKeyOrTheMessageShouldReachTheOtherNodeAsIs() {
        String key = "k\u0000nul\u0001";
        IllegalStateException boom = new IllegalStateException("bo\u0000om \u00010");
        ComputeCacheStall<String> failing = ComputeCacheStall.throwing(boom);
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute(key, TTL, failing));
        failing.awaitEntered();
        Future<String> other = callers.start("bob", () -> b.fetchOrCompute(key, TTL, () -> "bob"));
        awaitWaiters(b, key, 1);

        failing.release();

        assertThat(failure(computer)).isSameAs(boom);
        assertThat(failure(other)).isInstanceOfSatisfying(ComputeFailedException.class, failed -> {
            assertThat(failed.key()).isEqualTo(key);
            assertThat(failed.originalMessage()).isEqualTo(boom.getMessage());
        });
        assertThat(a.fetchOrCompute(key, TTL, () -> "nul")).isEqualTo("nul");
        assertThat(b.fetchOrCompute(key, TTL, () -> "other")).isEqualTo("nul");
        assertThat(b.fetchOrCompute("k\u0001" + "0nul\u0001", TTL, () -> "distinct")).isEqualTo("distinct");
        assertThat(b.fetchOrCompute(key + " ", TTL, () -> "trailing space")).isEqualTo("trailing space");
    }

    /**
     * A failure's message longer than a notice carries (a megabyte) still fails every waiter: on the computer's node
     * with the exception itself, on the other node as a {@link ComputeFailedException} with the message cut short.
     */
    @Test
    void aFailureWithAMessageOfAMegabyteShouldReachTheOtherNode() {
        IllegalStateException boom = new IllegalStateException("long " + "x".repeat(1 << 20));
        ComputeCacheStall<String> failing = ComputeCacheStall.throwing(boom);
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("long", TTL, failing));
        failing.awaitEntered();
        Future<String> other = callers.start("bob", () -> b.fetchOrCompute("long", TTL, () -> "bob"));
        awaitWaiters(b, "long", 1);

        failing.release();

        assertThat(failure(computer)).isSameAs(boom);
        assertThat(failure(other)).isInstanceOfSatisfying(ComputeFailedException.class, failed -> {
            assertThat(failed.originalClassName()).isEqualTo(IllegalStateException.class.getName());
            assertThat(failed.originalMessage()).startsWith("long xxx").hasSizeLessThan(8000);
        });
        assertThat(b.fetchOrCompute("long", TTL, () -> "after")).isEqualTo("after");
    }

    /** Issue 27, observation 11: a key as long as SPEC 2 allows (3,072 bytes of UTF-8) is cached across nodes. */
    @Test
    void aKeyAsLongAsSpecAllowsShouldBeComputedOnceAndFoundOnTheOtherNode() {
        String key = JdbcLockNodesTest.randomKey(0x4E00, 0x9FFF, 1023) + "a";
        assertThat(a.fetchOrCompute(key, TTL, () -> "long")).isEqualTo("long");
        assertThat(b.fetchOrCompute(key, TTL, () -> "again")).isEqualTo("long");
        assertThat(b.fetchOrCompute(key.substring(0, 1023) + "b", TTL, () -> "other")).isEqualTo("other");
        b.invalidate(key);
        assertThat(a.fetchOrCompute(key, TTL, () -> "anew")).isEqualTo("anew");
    }

    /** A stampede on many keys from both nodes at once: one computation per key, every caller gets its value. */
    @Test
    void concurrentMissesOfManyKeysOnBothNodesShouldComputeEachKeyOnce() throws Exception {
        int keys = 10;
        int threadsPerNode = 8;
        Map<String, AtomicInteger> computations = new ConcurrentHashMap<>();
        ExecutorService threads = Executors.newFixedThreadPool(2 * threadsPerNode);
        try {
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<Map<String, String>>> callers = new ArrayList<>();
            for (int t = 0; t < 2 * threadsPerNode; t++) {
                ComputeCache node = t % 2 == 0 ? a : b;
                callers.add(threads.submit(() -> {
                    gate.await();
                    Map<String, String> got = new HashMap<>();
                    for (int k = 0; k < keys; k++) {
                        String key = "stampede:" + k;
                        got.put(key, node.fetchOrCompute(key, TTL, () -> {
                            int n = computations.computeIfAbsent(key, any -> new AtomicInteger()).incrementAndGet();
                            sleep(50);
                            return key + "#" + n;
                        }));
                    }
                    return got;
                }));
            }
            gate.countDown();
            for (Future<Map<String, String>> caller : callers) {
                Map<String, String> got = caller.get(60, TimeUnit.SECONDS);
                got.forEach((key, value) -> assertThat(value).isEqualTo(key + "#1"));
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(computations).hasSize(keys).allSatisfy((key, count) -> assertThat(count).hasValue(1));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
