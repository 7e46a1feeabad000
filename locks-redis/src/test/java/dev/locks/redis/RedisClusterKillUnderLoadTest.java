package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.redis.test.RedisCluster;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A master of a cluster of 3 masters with a replica each killed (SIGKILL) while 3 nodes x 4 threads cycle leases
 * of one or two keys over keys on every shard: another node takes the other shards' keys at once (a thread per
 * key, from the kill on), and the failed shard's soon after its replica is promoted (a thread per key, from the
 * promotion on); no key ever has two holders, and no key's token goes backwards.
 *
 * <p>Bounds: 1 s after the kill for the other shards' keys, as the issue asks. Before the first fix one took 11.2 s
 * (a lease's release or undo stopped at the failed shard: the lock timeout, 15 s, or the promotion and a retry);
 * after it the slowest of 8 still took 1-4 s: a trace of the keys' queues in Redis showed each such key free, with
 * a ticket at the head of its queue that nobody refreshed and that expired 3 s after it was placed, before the kill:
 * left behind by a waiter that had given up (see RedisClusterTicketTest). With that fixed, 7 runs at a load average
 * of 14-17: the slowest of 8 within 9-515 ms.
 * The cluster runs with {@code cluster-require-full-coverage no}: by default Redis refuses every command on every
 * shard (CLUSTERDOWN) from the master's FAIL, about 1 s after the kill, until the promotion, which no client can
 * help. 1 s after the promotion (the replica's {@code ROLE} says master) for the failed shard's, as the issue asks,
 * with the client as Spring Boot builds it by default (Lettuce's topology refresh off: no period, no adaptive
 * trigger). Traced (the client's view of the slot's master polled every 2 ms, the keys' locks and queues on the
 * promoted replica): what stands between the promotion and the next acquisition is the client's view, then the
 * background release of leases taken on the dead master before the kill, whose locks the replica has. With a client
 * refresh every second the view changed 0.28 s after the promotion and the keys came 0.41-0.53 s after it; with
 * none, only the subscription's once-a-second check of its connections refreshed it, and the slowest key of 3 runs
 * came 0.65-0.91 s after the promotion (1.19 s once, with the refresh every second). Now a failed store call refreshes the view
 * (ClusterViewRefresh: 61-175 ms after the promotion), and the release retries' back-off is at most 100 ms: the
 * slowest key of 3 runs 185-314 ms after the promotion. Waiters' tickets replicated from the dead master go by the
 * removal retries of the nodes that placed them, in the same passes, not by their expiry.
 * Before, leases that had a key on the failed shard kept their other keys for their whole lock timeout (a release
 * or an acquire's undo that stopped at the failed shard) and waiters' tickets blocked newcomers for seconds.
 */
class RedisClusterKillUnderLoadTest {

    private static final Duration LOCK_TIMEOUT = Duration.ofSeconds(15);
    private static final AcquireOptions OPTIONS = AcquireOptions.defaults().withLockTimeout(LOCK_TIMEOUT)
            .withWaitTime(Duration.ofSeconds(3)).withRetryInterval(Duration.ofMillis(50));

    /** A probe keeps its place in the key's queue: it waits for the waiters before it, not for a lucky retry. */
    private static final AcquireOptions PROBE = OPTIONS.withRetries(1_000).withWaitTime(Duration.ofSeconds(5));

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

    private final Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> tokens = new ConcurrentHashMap<>();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger regressions = new AtomicInteger();
    private final AtomicInteger cycles = new AtomicInteger();
    private volatile boolean stop;

    @Test
    void killedMasterShouldHoldUpNeitherTheOtherShardsNorItsOwnKeysAfterThePromotion() throws Exception {
        RedisCluster cluster = redis.cluster();
        cluster.configSet("cluster-require-full-coverage", "no"); // the other shards serve while one has no master
        Map<Integer, List<String>> byMaster = new TreeMap<>();
        for (String key : IntStream.range(0, 300).mapToObj(i -> "load:" + i).toList()) {
            List<String> mine = byMaster.computeIfAbsent(cluster.masterPortOf(slot(key)), port -> new ArrayList<>());
            if (mine.size() < 4) {
                mine.add(key);
            }
        }
        assertThat(byMaster).hasSize(3);
        List<String> keys = byMaster.values().stream().flatMap(List::stream).sorted().toList();
        keys.forEach(key -> {
            holders.put(key, new AtomicInteger());
            tokens.put(key, new AtomicLong());
        });
        int victim = cluster.masterPortOf(keys.stream().mapToInt(RedisClusterKillUnderLoadTest::slot).min()
                .orElseThrow()); // a multi-slot call meets it first
        int replica = cluster.replicaOf(victim);
        List<RedisLockRegistry> nodes = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int n = 0; n < 3; n++) {
                RedisLockRegistry node = RedisLockRegistry.builder(cluster.newConnectionFactoryWithoutRefresh()).build();
                nodes.add(node);
                for (int t = 0; t < 4; t++) {
                    Thread thread = new Thread(() -> cycle(node, keys), "cycler-" + n + "-" + t);
                    thread.setDaemon(true);
                    threads.add(thread);
                    thread.start();
                }
            }
            Thread.sleep(3_000);
            assertThat(cycles.get()).as("cycles before the kill").isPositive();
            assertThat(cluster.awaitReplicated(victim)).as("the replica has every write so far").isOne();

            RedisLockRegistry prober = RedisLockRegistry.builder(cluster.newConnectionFactoryWithoutRefresh()).build();
            nodes.add(prober);
            settle(prober, keys);

            cluster.kill(victim);
            long killedAt = System.nanoTime();
            List<String> healthy = keys.stream().filter(key -> !byMaster.get(victim).contains(key)).toList();
            Map<String, CompletableFuture<Long>> others = probes(prober, healthy, killedAt);
            long promotedAt = cluster.awaitMaster(replica);
            Map<String, CompletableFuture<Long>> failed = probes(prober, byMaster.get(victim), promotedAt);
            CompletableFuture.allOf(others.values().toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            CompletableFuture.allOf(failed.values().toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            Thread.sleep(1_000); // the cyclers go on a little longer
            stop = true;
            for (Thread thread : threads) {
                thread.join(30_000);
            }

            System.out.printf("promotion %d ms after the kill; %d cycles%n", millis(promotedAt - killedAt),
                    cycles.get());
            others.forEach((key, at) -> System.out.printf("%s (another shard): taken %d ms after the kill%n", key,
                    at.join()));
            failed.forEach((key, at) -> System.out.printf("%s (the failed shard): taken %d ms after the promotion%n",
                    key, at.join()));
            assertThat(overlaps.get()).as("two holders of a key at once").isZero();
            assertThat(regressions.get()).as("a key's token going backwards").isZero();
            others.forEach((key, at) -> assertThat(at.join()).as("another shard's " + key
                    + ": taken within 1 s of the kill").isLessThan(1_000));
            failed.forEach((key, at) -> assertThat(at.join()).as("the failed shard's " + key
                    + ": taken within 1 s of the replica's promotion").isLessThan(1_000));
        } finally {
            stop = true;
            for (Thread thread : threads) {
                thread.join(30_000);
            }
            nodes.forEach(RedisLockRegistry::close);
        }
    }

    /** Makes sure {@code node} is connected to every shard: it takes every key once (retrying a slow start). */
    private void settle(RedisLockRegistry node, List<String> keys) throws InterruptedException {
        for (String key : keys) {
            assertThat(probe(node, key, System.nanoTime()).join()).as("settling on " + key).isNotNegative();
        }
    }

    /** One thread per key, taking it once as soon as it can from {@code since}: in how many ms. */
    private Map<String, CompletableFuture<Long>> probes(RedisLockRegistry node, List<String> keys, long since) {
        Map<String, CompletableFuture<Long>> probes = new TreeMap<>();
        for (String key : keys) {
            probes.put(key, probe(node, key, since));
        }
        return probes;
    }

    private CompletableFuture<Long> probe(RedisLockRegistry node, String key, long since) {
        CompletableFuture<Long> taken = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                try (Lease lease = node.acquire(List.of(key), PROBE)) {
                    long at = System.nanoTime();
                    check(List.of(key), lease);
                    taken.complete(millis(at - since));
                    return;
                } catch (LockUnavailableException | LockTimeoutException notYet) {
                    sleepQuietly(10);
                } catch (RuntimeException e) {
                    taken.completeExceptionally(e);
                    return;
                }
            }
            taken.complete(Long.MAX_VALUE);
        }, "probe-" + key);
        thread.setDaemon(true);
        thread.start();
        return taken;
    }

    /** Counts a second holder of any of {@code keys} and a token not above the key's last one; then holds 2 ms. */
    private void check(List<String> keys, Lease held) {
        for (String key : keys) {
            if (holders.get(key).incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            long before = tokens.get(key).getAndAccumulate(held.fencingToken(), Math::max);
            if (held.fencingToken() <= before) {
                regressions.incrementAndGet();
            }
        }
        sleepQuietly(2);
        for (String key : keys) {
            holders.get(key).decrementAndGet();
        }
    }

    /** Leases of one or two random keys, held 2 ms, until told to stop; failures are part of the outage. */
    private void cycle(RedisLockRegistry node, List<String> keys) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop) {
            List<String> lease = IntStream.range(0, 1 + random.nextInt(2)).mapToObj(i -> keys.get(random.nextInt(keys.size())))
                    .distinct().sorted().toList();
            try (Lease held = node.acquire(lease, OPTIONS)) {
                check(lease, held);
                cycles.incrementAndGet();
                sleepQuietly(20); // load, not a queue on every key: a probe measures the outage, not the contention
            } catch (LockUnavailableException | LockTimeoutException outage) {
                sleepQuietly(20);
            }
        }
    }

    private static int slot(String key) {
        return ClusterSlots.slot("locks:lock:" + key);
    }

    private static long millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
