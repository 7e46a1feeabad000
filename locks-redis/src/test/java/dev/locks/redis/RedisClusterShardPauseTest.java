package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.redis.test.RedisCluster;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One master of a cluster of 3 paused (SIGSTOP: it keeps its connections and answers nothing, so each call to
 * it waits for the client's command timeout, 500 ms here): the keys on the other shards are released and renewed
 * as if nothing happened. The paused master is the one of the lowest slot of the keys, which a multi-slot call
 * meets first. The cluster serves the other shards' slots meanwhile ({@code cluster-require-full-coverage no}:
 * the paused master has no replica to take over).
 */
class RedisClusterShardPauseTest {

    private static final AcquireOptions ONCE = AcquireOptions.defaults().withRetries(0)
            .withLockTimeout(Duration.ofSeconds(30));

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    private RedisCluster cluster;
    /** Keys by the port of their master, 3 per master, and the port of the master of the lowest slot of them. */
    private final Map<Integer, List<String>> byMaster = new TreeMap<>();
    private int paused;

    @BeforeEach
    void keysOnEveryShard() {
        cluster = redis.cluster();
        cluster.configSet("cluster-require-full-coverage", "no");
        List<String> keys = IntStream.range(0, 200).mapToObj(i -> "pause:" + i).toList();
        for (String key : keys) {
            List<String> mine = byMaster.computeIfAbsent(master(key), port -> new ArrayList<>());
            if (mine.size() < 3) {
                mine.add(key);
            }
        }
        assertThat(byMaster).hasSize(3);
        paused = master(byMaster.values().stream().flatMap(List::stream)
                .min(Comparator.comparingInt(this::slot)).orElseThrow());
    }

    @Test
    void closeShouldFreeTheKeysOnTheOtherShardsAtOnceAndThePausedShardsOnceItAnswers() throws Exception {
        try (RedisLockRegistry holder = RedisLockRegistry.builder(cluster.newConnectionFactory()).build();
                RedisLockRegistry other = RedisLockRegistry.builder(cluster.newConnectionFactory()).build()) {
            Lease lease = settled(holder, allKeys(), ONCE);
            cluster.pause(paused);
            try {
                long closing = System.nanoTime();
                lease.close();
                Duration closed = Duration.ofNanos(System.nanoTime() - closing);
                assertThat(closed).as("close() waits for one command timeout at most").isLessThan(Duration.ofSeconds(3));

                long start = System.nanoTime();
                Optional<Lease> healthy = take(other, healthyKeys(), ONCE.withWaitTime(Duration.ofSeconds(2)));
                assertThat(healthy).as("the other shards' keys, free at once after close() (within 2 s on a loaded"
                        + " machine; the paused master answers nothing for 8 s)").isPresent();
                System.out.printf("other shards' keys free %d ms after close() returned (close() took %d ms)%n",
                        Duration.ofNanos(System.nanoTime() - start).toMillis(), closed.toMillis());
                healthy.get().close();
                Thread.sleep(Math.max(0, 8_000 - Duration.ofNanos(System.nanoTime() - closing).toMillis()));
            } finally {
                cluster.resume(paused);
            }
            // the paused shard's keys: released by the background retry once it answers, not after 30 s
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).until(() -> {
                try {
                    Optional<Lease> taken = take(other, byMaster.get(paused), ONCE);
                    taken.ifPresent(Lease::close);
                    return taken.isPresent();
                } catch (RuntimeException stillCatchingUp) {
                    return false;
                }
            });
        }
    }

    @Test
    void theWatchdogShouldKeepRenewingTheKeysOnTheOtherShards() throws Exception {
        // renewed every 1.7 s, each pass waiting 500 ms for the paused master: margin for a loaded machine
        AcquireOptions short5s = ONCE.withLockTimeout(Duration.ofSeconds(5));
        try (RedisLockRegistry holder = RedisLockRegistry.builder(cluster.newConnectionFactory()).watchdog(true)
                .build();
                RedisLockRegistry other = RedisLockRegistry.builder(cluster.newConnectionFactory()).build()) {
            Lease everywhere = settled(holder, allKeys(), short5s); // renewed in the same batch as the next
            Lease healthy = settled(holder, healthyOnly(), short5s);
            cluster.pause(paused);
            try {
                long until = System.nanoTime() + Duration.ofSeconds(8).toNanos(); // longer than the lock timeout
                while (System.nanoTime() < until) {
                    assertThat(healthy.isHeld()).as("a lease on the healthy shards stays held").isTrue();
                    for (String key : healthyKeys()) {
                        Optional<Lease> taken = take(other, List.of(key), ONCE);
                        taken.ifPresent(Lease::close);
                        assertThat(taken).as("renewed on its healthy shard, never free: " + key).isEmpty();
                    }
                    Thread.sleep(500);
                }
            } finally {
                cluster.resume(paused);
            }
            assertThat(everywhere.isHeld()).as("its keys on the paused shard were not renewed in time").isFalse();
            healthy.close();
            everywhere.close();
        }
    }

    /**
     * The first acquire of a fresh node on a loaded machine may time out while its connections open. On this
     * thread: the watchdog renews only the leases of live acquirers.
     */
    private static Lease settled(RedisLockRegistry registry, List<String> keys, AcquireOptions options)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                return registry.acquire(keys, options);
            } catch (LockUnavailableException slowStart) {
                if (System.nanoTime() > deadline) {
                    throw slowStart;
                }
                Thread.sleep(200);
            }
        }
    }

    private static Optional<Lease> take(RedisLockRegistry registry, List<String> keys, AcquireOptions options) {
        try {
            return Optional.of(registry.acquire(keys, options));
        } catch (LockTimeoutException held) {
            return Optional.empty();
        }
    }

    /** Other keys than {@link #healthyKeys()}, on the healthy shards too. */
    private List<String> healthyOnly() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < 4; i++) {
            String key = "renewed:" + i;
            if (master(key) != paused) {
                keys.add(key);
            }
        }
        return keys.stream().sorted().toList();
    }

    private List<String> allKeys() {
        return byMaster.values().stream().flatMap(List::stream).sorted().toList();
    }

    private List<String> healthyKeys() {
        return byMaster.entrySet().stream().filter(e -> e.getKey() != paused).flatMap(e -> e.getValue().stream())
                .sorted().toList();
    }

    private int slot(String key) {
        return ClusterSlots.slot("locks:lock:" + key);
    }

    private int master(String key) {
        return cluster.masterPortOf(slot(key));
    }
}
