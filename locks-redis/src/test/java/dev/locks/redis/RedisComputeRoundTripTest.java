package dev.locks.redis;

import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeOptions;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.contract.ComputeCacheStall;
import dev.locks.redis.test.RedisMonitor;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Round trips counted, not assumed (MONITOR: what clients sent; INFO commandstats: what the server ran). A hit
 * is one GET; the computer of a miss sends a GET, a claim and a completion; a waiter on the computer's node
 * only its GET; on another node, its first caller a GET and a claim, its other callers a GET each, and the
 * node one GET to fetch the value the notice announced.
 */
class RedisComputeRoundTripTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration TTL = Duration.ofMinutes(1);

    private final ComputeCacheCallers callers = new ComputeCacheCallers();
    private RedisComputeCache a;
    private RedisComputeCache b;

    @BeforeEach
    void warmUp() {
        a = node(redis.connectionFactory());
        b = node(redis.newConnectionFactory());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> a.subscriptionConfirmations() > 0 && b.subscriptionConfirmations() > 0);
        a.fetchOrCompute("warm-up", TTL, () -> "v"); // the scripts are loaded, the connections are up
        b.fetchOrCompute("warm-up", TTL, () -> "v");
        a.invalidate("warm-up");
        redis.server().command("CONFIG", "RESETSTAT");
    }

    @AfterEach
    void close() throws InterruptedException {
        callers.close();
        a.close();
        b.close();
    }

    /** A node that never looks at Redis by itself during a test: every round trip it makes is one it must. */
    private static RedisComputeCache node(org.springframework.data.redis.connection.RedisConnectionFactory factory) {
        return RedisComputeCache.builder(factory).defaultOptions(ComputeOptions.defaults().withTtl(TTL))
                .pollInterval(Duration.ofMinutes(1)).build();
    }

    @Test
    void hitShouldBeOneGet() {
        a.fetchOrCompute("k", TTL, () -> "v");

        try (RedisMonitor monitor = new RedisMonitor(redis.server())) {
            assertThat(a.fetchOrCompute("k", TTL, () -> "other")).isEqualTo("v");
            assertThat(b.fetchOrCompute("k", TTL, () -> "other")).isEqualTo("v");
            assertThat(monitor.commandsSent()).containsExactly("get", "get");
        }
    }

    @Test
    void computedMissShouldBeAGetAClaimAndACompletion() {
        try (RedisMonitor monitor = new RedisMonitor(redis.server())) {
            assertThat(a.fetchOrCompute("k", TTL, () -> "v")).isEqualTo("v");
            assertThat(monitor.commandsSent()).containsExactly("get", "evalsha", "evalsha");
        }
        Map<String, Long> calls = redis.server().commandCalls();
        assertThat(calls.get("publish")).as("one notice per miss").isEqualTo(1L);
        assertThat(calls).doesNotContainKey("eval");
    }

    @Test
    void waitersShouldCostTheirGetAndEachOtherNodeOneClaimAndOneFetch() {
        ComputeCacheStall<String> computation = ComputeCacheStall.returning("v");
        List<Future<String>> calls = new ArrayList<>();
        try (RedisMonitor monitor = new RedisMonitor(redis.server())) {
            calls.add(callers.start("computer", () -> a.fetchOrCompute("k", TTL, computation)));
            computation.awaitEntered();
            for (int i = 1; i <= 3; i++) {
                calls.add(callers.start("a-" + i, () -> a.fetchOrCompute("k", TTL, () -> "a")));
                awaitWaiters(a, "k", i);
            }
            for (int i = 1; i <= 3; i++) {
                calls.add(callers.start("b-" + i, () -> b.fetchOrCompute("k", TTL, () -> "b")));
                awaitWaiters(b, "k", i);
            }
            computation.release();
            for (Future<String> call : calls) {
                assertThat(result(call)).isEqualTo("v");
            }

            List<String> sent = monitor.commandsSent();
            assertThat(sent).filteredOn("evalsha"::equals).as("A's claim and completion, B's claim").hasSize(3);
            assertThat(sent).filteredOn("get"::equals).as("each caller's GET, and B's fetch of the value")
                    .hasSize(4 + 3 + 1);
            assertThat(sent).hasSize(11);
        }
        assertThat(redis.server().commandCalls().get("publish")).isEqualTo(1L);
    }
}
