package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.redis.test.RedisCluster;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a node's sharded subscription costs a Redis Cluster (issue 27, item 11): a node subscribes the channel
 * of a slot only once one of its waiters waits on a key of that slot, and keeps it; starting sends no
 * {@code SSUBSCRIBE} at all (it used to send one per slot and channel kind: 10,922 per master of three).
 */
class RedisClusterSubscriptionCostTest {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    @Test
    void aNodeShouldSubscribeOnlyTheSlotsItsWaitersWaitOn() throws Exception {
        RedisCluster cluster = redis.cluster();
        resetStats(cluster);
        String key = "cost:1";
        int slot = cluster.keySlot("locks:lock:" + key);
        AcquireOptions patient = AcquireOptions.defaults().withRetryInterval(Duration.ofMinutes(1))
                .withWaitTime(Duration.ofMinutes(2)).withLockTimeout(Duration.ofSeconds(30));
        try (RedisLockRegistry holder = RedisLockRegistry.builder(cluster.newConnectionFactory())
                .cleanupInterval(Duration.ZERO).build();
                RedisLockRegistry waiter = RedisLockRegistry.builder(cluster.newConnectionFactory())
                        .cleanupInterval(Duration.ZERO).build();
                RedisComputeCache values = RedisComputeCache.builder(cluster.newConnectionFactory()).build()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> holder.store().subscriptionConfirmations() > 0
                    && waiter.store().subscriptionConfirmations() > 0 && values.subscriptionConfirmations() > 0);
            Thread.sleep(1_000); // a check of each subscription ran meanwhile
            assertThat(ssubscribes(cluster)).as("SSUBSCRIBE calls per master after three nodes started")
                    .allSatisfy((master, calls) -> assertThat(calls).isZero());

            Lease held = holder.acquire(List.of(key), patient);
            CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
                try (Lease lease = waiter.acquire(List.of(key), patient)) {
                    return lease.fencingToken();
                }
            });
            String channel = ClusterSlots.shardChannel("locks:released", slot);
            await("the waiter's node subscribed its key's slot").atMost(Duration.ofSeconds(20))
                    .until(() -> cluster.command(cluster.masterPortOf(slot), "PUBSUB", "SHARDNUMSUB", channel)
                            .equals(List.of(channel, 1L)));
            long token = held.fencingToken();
            held.close();
            assertThat(waited.get(20, TimeUnit.SECONDS)).as("woken by the notice, not its 1 min retry interval")
                    .isGreaterThan(token);
            Map<Integer, Long> calls = ssubscribes(cluster);
            assertThat(calls.get(cluster.masterPortOf(slot))).as("the one slot waited on: " + calls)
                    .isBetween(1L, 2L);
            assertThat(calls.values().stream().mapToLong(Long::longValue).sum()).as("nowhere else: " + calls)
                    .isEqualTo(calls.get(cluster.masterPortOf(slot)));
        }
    }

    private static void resetStats(RedisCluster cluster) {
        for (int port : cluster.masterPorts()) {
            cluster.command(port, "CONFIG", "RESETSTAT");
        }
    }

    /** {@code cmdstat_ssubscribe calls} of each master since {@link #resetStats}. */
    private static Map<Integer, Long> ssubscribes(RedisCluster cluster) {
        Map<Integer, Long> calls = new HashMap<>();
        for (int port : cluster.masterPorts()) {
            calls.put(port, 0L);
            for (String line : ((String) cluster.command(port, "INFO", "commandstats")).split("\r\n")) {
                if (line.startsWith("cmdstat_ssubscribe:")) {
                    String stats = line.substring(line.indexOf("calls=") + "calls=".length());
                    calls.put(port, Long.parseLong(stats.substring(0, stats.indexOf(','))));
                }
            }
        }
        return calls;
    }
}
