package dev.locks.redis;

import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.contract.ComputeCacheStall;
import dev.locks.contract.ComputeNodesContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Two nodes in one JVM, each a cache on a connection factory of its own, on one redis-server, in real time: the
 * {@link ComputeNodesContract}, and what Redis itself shows of it (no value stored for a null result, expiry by
 * the server's clock, one subscription per node).
 */
class RedisComputeNodesTest extends ComputeNodesContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisConnectionFactory otherNode;

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, boolean first) {
        if (otherNode == null) {
            otherNode = redis.newConnectionFactory();
        }
        RedisComputeCache node = RedisComputeCache.builder(first ? redis.connectionFactory() : otherNode)
                .defaultOptions(defaults).build();
        await().atMost(Duration.ofSeconds(10)).until(() -> node.subscriptionConfirmations() > 0);
        return node;
    }

    @Override
    protected boolean joinsComputationOf(ComputeCache node, String key) {
        return ((RedisComputeCache) node).joinsComputationOf(key);
    }

    @Test
    void nullResultShouldReachEveryNodeAndBeStoredNowhere() {
        ComputeCacheStall<String> nothing = ComputeCacheStall.returning(null);
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, nothing));
        nothing.awaitEntered();
        Future<String> otherNode = callers.start("bob", () -> b.fetchOrCompute("k", TTL, () -> "bob"));
        awaitWaiters(b, "k", 1);

        nothing.release();

        assertThat(result(computer)).isNull();
        assertThat(result(otherNode)).isNull();
        assertThat(redis.server().command("EXISTS", "locks:value:k")).isEqualTo(0L);
        assertThat(b.fetchOrCompute("k", TTL, () -> "v")).isEqualTo("v");
    }

    @Test
    void valueShouldExpireOnEveryNodeAfterItsTtlByTheServersClock() {
        AtomicInteger computations = new AtomicInteger();
        Duration ttl = Duration.ofMillis(400);
        long stored = System.nanoTime();
        assertThat(a.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v1");
        assertThat((Long) redis.server().command("PTTL", "locks:value:k")).isBetween(1L, 400L);
        assertThat(b.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v1");

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> b.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet()), "v2"::equals);

        assertThat(Duration.ofNanos(System.nanoTime() - stored)).isGreaterThanOrEqualTo(ttl.minusMillis(20));
        assertThat(a.fetchOrCompute("k", ttl, () -> "v" + computations.incrementAndGet())).isEqualTo("v2");
        a.fetchOrCompute("forever", Duration.ZERO, () -> "v");
        assertThat(redis.server().command("PTTL", "locks:value:forever")).isEqualTo(-1L);
    }

    @Test
    void eachNodeShouldSubscribeOnceForAllKeys() {
        List<Future<String>> calls = new ArrayList<>();
        ComputeCacheStall<String> slow = ComputeCacheStall.returning("v");
        for (int i = 0; i < 20; i++) {
            String key = "key-" + i;
            calls.add(callers.start("a-" + i, () -> a.fetchOrCompute(key, TTL, slow)));
            calls.add(callers.start("b-" + i, () -> b.fetchOrCompute(key, TTL, slow)));
        }
        await().atMost(ComputeCacheCallers.PATIENCE)
                .until(() -> a.computations().size() + b.computations().size() == 40);

        assertThat(redis.server().subscribers("locks:computed")).isEqualTo(2);
        slow.release();
        for (Future<String> call : calls) {
            assertThat(result(call)).isEqualTo("v");
        }
        assertThat(slow.calls()).isEqualTo(20);
    }
}
