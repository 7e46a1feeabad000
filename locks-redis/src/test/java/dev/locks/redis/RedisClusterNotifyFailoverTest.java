package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockUnavailableException;
import dev.locks.redis.test.RedisCluster;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The master that holds a slot's shard channel killed (SIGKILL) on a cluster of 3 masters with a replica each:
 * the node's subscription loses that master's slots, waits for the replica to take over, subscribes those
 * slots there (the other masters' stay as they were), and a waiter on a key of that slot is woken by a notice
 * again, with nothing left locked.
 */
class RedisClusterNotifyFailoverTest {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

    @Test
    void waitersShouldBeWokenByNoticesAgainOnceTheKilledMastersReplicaTookOver() throws Exception {
        RedisCluster cluster = redis.cluster();
        String key = "notice:1";
        int slot = cluster.keySlot("locks:lock:" + key);
        int master = cluster.masterPortOf(slot);
        String channel = ClusterSlots.shardChannel("locks:released", slot);
        AcquireOptions once = AcquireOptions.defaults().withRetries(0).withLockTimeout(Duration.ofSeconds(30));
        AcquireOptions patient = AcquireOptions.defaults().withRetryInterval(Duration.ofMinutes(1))
                .withWaitTime(Duration.ofMinutes(2)).withLockTimeout(Duration.ofSeconds(30));
        try (RedisLockRegistry holder = RedisLockRegistry.builder(cluster.newConnectionFactory())
                .cleanupInterval(Duration.ZERO).notify(false).build(); // the waiter's is the one subscription
                RedisLockRegistry waiter = RedisLockRegistry.builder(cluster.newConnectionFactory())
                        .cleanupInterval(Duration.ZERO).build()) {
            RedisLockStore store = waiter.store();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> store.subscriptionConfirmations() > 0 && store.missingShardChannels() == 0);
            int confirmed = store.subscriptionConfirmations();
            woken(holder, waiter, key, patient);
            assertThat(cluster.awaitReplicated(master)).as("the replica is in sync, so that it can"
                    + " take over").isOne();

            cluster.kill(master);

            await("the killed master's slots are missing").atMost(Duration.ofSeconds(20))
                    .until(() -> store.missingShardChannels() > 0);
            assertThat(store.missingShardChannels()).as("only the killed master's slots").isLessThan(ClusterSlots.COUNT / 2);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (true) {
                try (Lease probe = holder.acquire(List.of(key), once)) {
                    break;
                } catch (LockUnavailableException stillDown) {
                    if (System.nanoTime() > deadline) {
                        int live = cluster.masterPorts().get(0);
                        throw new AssertionError("the replica did not take over within 60 s: "
                                + cluster.command(live, "CLUSTER", "NODES"), stillDown);
                    }
                    Thread.sleep(100);
                }
            }
            int promoted = cluster.masterPortOf(slot);
            assertThat(promoted).isNotEqualTo(master);
            await("subscribed on the new master").atMost(Duration.ofSeconds(30))
                    .until(() -> store.missingShardChannels() == 0 && store.subscriptionConfirmations() > confirmed);
            assertThat(cluster.command(promoted, "PUBSUB", "SHARDNUMSUB", channel)).isEqualTo(List.of(channel, 1L));

            woken(holder, waiter, key, patient);
            assertThat(holder.heldCount() + waiter.heldCount()).isZero();
            assertThat(store.scan(100)).as("nothing left locked").isEmpty();
        }
    }

    /** The holder takes {@code key}, the waiter waits for it (its retry interval a minute), the holder lets go. */
    private static void woken(RedisLockRegistry holder, RedisLockRegistry waiter, String key, AcquireOptions patient)
            throws Exception {
        Lease held = holder.acquire(List.of(key), patient);
        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            try (Lease lease = waiter.acquire(List.of(key), patient)) {
                return lease.fencingToken();
            }
        });
        RedisCluster cluster = redis.cluster();
        int slot = cluster.keySlot("locks:lock:" + key);
        String queue = "locks:queue:{" + ClusterSlots.tag(slot) + "}" + key;
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.command(cluster.masterPortOf(slot), "EXISTS", queue)
                .equals(1L));
        String channel = ClusterSlots.shardChannel("locks:released", slot);
        await("the waiter's node subscribed its key's slot").atMost(Duration.ofSeconds(20)).until(() -> cluster
                .command(cluster.masterPortOf(slot), "PUBSUB", "SHARDNUMSUB", channel).equals(List.of(channel, 1L)));
        long token = held.fencingToken();
        held.close();
        assertThat(waited.get(20, TimeUnit.SECONDS)).as("woken by the notice of " + key).isGreaterThan(token);
    }
}
