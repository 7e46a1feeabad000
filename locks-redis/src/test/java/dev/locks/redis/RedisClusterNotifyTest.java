package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.redis.test.RedisCluster;
import dev.locks.redis.test.RedisClusterExtension;
import dev.locks.spi.RemoteLockStore.Owner;
import dev.locks.spi.RemoteLockStore.Ownership;
import dev.locks.spi.RemoteLockStore.Ticket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * Release notices on a Redis Cluster of 3 masters go by sharded pub/sub: the scripts {@code SPUBLISH} on the
 * channel of their keys' slot (never a cluster-wide {@code PUBLISH}), and a node's one subscription holds, on
 * one connection per master, the channel of every slot its waiters waited on (and of no other): waiters are
 * woken by a notice, never by a poll.
 */
class RedisClusterNotifyTest {

    private static final Owner ALICE = new Owner("node:alice", "alice @ node");

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    @Test
    void releasesShouldBeNoticedOnEveryMastersShardChannelAndNeverPublishedClusterWide() throws InterruptedException {
        RedisCluster cluster = redis.cluster();
        List<String> keys = IntStream.range(0, 30).mapToObj(i -> "notice:" + i).toList();
        List<Integer> masters = cluster.masterPorts();
        assertThat(keys.stream().map(key -> cluster.masterPortOf(slot(cluster, key))).distinct()).hasSize(3);
        BlockingQueue<String> noticed = new LinkedBlockingQueue<>();
        try (RedisLockStore store = new RedisLockStore(redis.connectionFactory(), "locks:", true)) {
            store.subscribe(noticed::add, () -> { });
            await().atMost(Duration.ofSeconds(20)).until(() -> store.subscriptionConfirmations() > 0
                    && store.missingShardChannels() == 0);
            for (int master : masters) {
                assertThat(cluster.command(master, "PUBSUB", "NUMSUB", "locks:released"))
                        .as("no plain subscription").isEqualTo(List.of("locks:released", 0L));
            }
            for (String key : keys) {
                String channel = ClusterSlots.shardChannel("locks:released", slot(cluster, key));
                assertThat(cluster.command(cluster.masterPortOf(slot(cluster, key)), "PUBSUB", "SHARDNUMSUB", channel))
                        .as("no subscriber of " + channel + " before anyone waits there").isEqualTo(List.of(channel, 0L));
            }
            resetStats(cluster);

            for (String key : keys) {
                assertThat(store.tryAcquire(List.of(key), ALICE, 10_000).isTaken()).isTrue();
                store.enqueue(List.of(key), new Ticket("ticket:" + key, 0, 10_000)); // someone waits: a notice
                String channel = ClusterSlots.shardChannel("locks:released", slot(cluster, key));
                await("the waiting node subscribed " + channel).atMost(Duration.ofSeconds(20)).until(() -> cluster
                        .command(cluster.masterPortOf(slot(cluster, key)), "PUBSUB", "SHARDNUMSUB", channel)
                        .equals(List.of(channel, 1L)));
                assertThat(store.release(List.of(new Ownership(key, ALICE.id(), 0)))).isEmpty();
                assertThat(noticed.poll(10, TimeUnit.SECONDS)).as("the notice of " + key).isEqualTo(key);
                store.dequeue(List.of(key), "ticket:" + key);
            }
            assertThat(calls(cluster, "spublish")).as("a notice per release").isGreaterThanOrEqualTo(keys.size());
            assertThat(calls(cluster, "publish")).as("nothing cluster-wide").isZero();
        }
    }

    /** A waiter whose retry interval is a minute gets the key within seconds of its release: a notice woke it. */
    @Test
    void aWaiterShouldBeWokenByTheNoticeOfItsKeysShard() throws Exception {
        RedisCluster cluster = redis.cluster();
        List<String> keys = List.of("woken:1", "woken:2", "woken:3", "woken:4");
        try (RedisLockRegistry holder = RedisLockRegistry.builder(redis.connectionFactory()).build();
                RedisLockRegistry waiter = RedisLockRegistry.builder(cluster.newConnectionFactory()).build()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> waiter.store().subscriptionConfirmations() > 0
                    && waiter.store().missingShardChannels() == 0);
            AcquireOptions patient = AcquireOptions.defaults().withRetryInterval(Duration.ofMinutes(1))
                    .withWaitTime(Duration.ofMinutes(2)).withLockTimeout(Duration.ofSeconds(30));
            for (String key : keys) {
                Lease held = holder.acquire(List.of(key), patient);
                CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
                    try (Lease lease = waiter.acquire(List.of(key), patient)) {
                        return lease.fencingToken();
                    }
                });
                await().atMost(Duration.ofSeconds(10)).until(() -> cluster.command(
                        cluster.masterPortOf(slot(cluster, key)), "EXISTS", "locks:queue:{"
                                + ClusterSlots.tag(slot(cluster, key)) + "}" + key).equals(1L));
                String channel = ClusterSlots.shardChannel("locks:released", slot(cluster, key));
                await().atMost(Duration.ofSeconds(20)).until(() -> cluster.command(cluster.masterPortOf(
                        slot(cluster, key)), "PUBSUB", "SHARDNUMSUB", channel).equals(List.of(channel, 1L)));
                long token = held.fencingToken();
                held.close();
                assertThat(waited.get(20, TimeUnit.SECONDS)).as("woken by the notice of " + key).isGreaterThan(token);
            }
        }
    }

    /**
     * Fetch-or-compute on two nodes: the computer's completion reaches the other node's waiter on the shard
     * channel of the value's slot, which the waiter's node subscribed once it waited there (the computer's node,
     * which waited nowhere, holds none), and nothing is published cluster-wide.
     */
    @Test
    void computeNoticesShouldGoOnTheShardChannelOfTheValuesSlot() throws Exception {
        RedisCluster cluster = redis.cluster();
        Duration ttl = Duration.ofMinutes(1);
        try (RedisComputeCache a = RedisComputeCache.builder(redis.connectionFactory()).build();
                RedisComputeCache b = RedisComputeCache.builder(cluster.newConnectionFactory()).build()) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> a.subscriptionConfirmations() > 0 && b.subscriptionConfirmations() > 0);
            int valueSlot = cluster.keySlot("locks:value:report");
            String channel = ClusterSlots.shardChannel("locks:computed", valueSlot);
            assertThat(cluster.command(cluster.masterPortOf(valueSlot), "PUBSUB", "SHARDNUMSUB", channel))
                    .as("nobody waited yet").isEqualTo(List.of(channel, 0L));
            resetStats(cluster);
            CountDownLatch computing = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            AtomicInteger computations = new AtomicInteger();
            CompletableFuture<String> computer = CompletableFuture.supplyAsync(() -> a.fetchOrCompute("report", ttl,
                    () -> {
                        computations.incrementAndGet();
                        computing.countDown();
                        await().atMost(Duration.ofSeconds(30)).until(() -> finish.getCount() == 0);
                        return "value";
                    }));
            assertThat(computing.await(20, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> b.fetchOrCompute("report", ttl,
                    () -> {
                        computations.incrementAndGet();
                        return "second";
                    }));
            await("the waiter's node subscribed the value's slot").atMost(Duration.ofSeconds(20)).until(() -> cluster
                    .command(cluster.masterPortOf(valueSlot), "PUBSUB", "SHARDNUMSUB", channel)
                    .equals(List.of(channel, 1L)));
            finish.countDown();
            assertThat(computer.get(20, TimeUnit.SECONDS)).isEqualTo("value");
            assertThat(waiter.get(20, TimeUnit.SECONDS)).isEqualTo("value");
            assertThat(computations).hasValue(1);
            assertThat(calls(cluster, "spublish")).as("the completion's notice").isPositive();
            assertThat(calls(cluster, "publish")).as("nothing cluster-wide").isZero();
        }
    }

    /**
     * On a Jedis cluster factory (Spring Data Redis has no sharded subscription, and Jedis is not Lettuce) the
     * store keeps the one channel: {@code PUBLISH}, which the cluster carries to the node's plain subscription.
     */
    @Test
    void aJedisClusterFactoryShouldKeepThePlainChannel() throws InterruptedException {
        RedisCluster cluster = redis.cluster();
        JedisConnectionFactory jedis = new JedisConnectionFactory(new RedisClusterConfiguration(
                Arrays.stream(cluster.ports()).mapToObj(port -> "127.0.0.1:" + port).toList()));
        jedis.afterPropertiesSet();
        jedis.start();
        BlockingQueue<String> noticed = new LinkedBlockingQueue<>();
        try (RedisLockStore store = new RedisLockStore(jedis, "locks:", true)) {
            store.subscribe(noticed::add, () -> { });
            await().atMost(Duration.ofSeconds(20)).until(() -> store.subscriptionConfirmations() > 0);
            resetStats(cluster);
            String key = "jedis:1";
            assertThat(store.tryAcquire(List.of(key), ALICE, 10_000).isTaken()).isTrue();
            store.enqueue(List.of(key), new Ticket("ticket:" + key, 0, 10_000));
            assertThat(store.release(List.of(new Ownership(key, ALICE.id(), 0)))).isEmpty();
            assertThat(noticed.poll(10, TimeUnit.SECONDS)).isEqualTo(key);
            store.dequeue(List.of(key), "ticket:" + key);
            assertThat(calls(cluster, "publish")).isPositive();
            assertThat(calls(cluster, "spublish")).isZero();
        } finally {
            jedis.destroy();
        }
    }

    private static int slot(RedisCluster cluster, String key) {
        return cluster.keySlot("locks:lock:" + key);
    }

    private static void resetStats(RedisCluster cluster) {
        for (int port : cluster.masterPorts()) {
            cluster.command(port, "CONFIG", "RESETSTAT");
        }
    }

    /** The calls of {@code command} on every master since {@link #resetStats}, scripts' calls included. */
    private static long calls(RedisCluster cluster, String command) {
        long calls = 0;
        for (int port : cluster.masterPorts()) {
            for (String line : ((String) cluster.command(port, "INFO", "commandstats")).split("\r\n")) {
                if (line.startsWith("cmdstat_" + command + ":")) {
                    String stats = line.substring(line.indexOf("calls=") + "calls=".length());
                    calls += Long.parseLong(stats.substring(0, stats.indexOf(',')));
                }
            }
        }
        return calls;
    }
}
