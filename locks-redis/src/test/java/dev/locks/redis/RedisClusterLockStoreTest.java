package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.locks.redis.test.RedisCluster;
import dev.locks.redis.test.RedisClusterExtension;
import dev.locks.spi.RemoteLockStore;
import dev.locks.spi.RemoteLockStore.Attempt;
import dev.locks.spi.RemoteLockStore.Owner;
import dev.locks.spi.RemoteLockStore.Ownership;
import dev.locks.spi.RemoteLockStore.RemoteLock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.script.RedisScript;

/** The Redis lock store on a Redis Cluster of 3 masters, with keys whose slots lie on different masters. */
class RedisClusterLockStoreTest {

    private static final Owner ALICE = new Owner("node:alice", "alice @ node");
    private static final Owner BOB = new Owner("node:bob", "bob @ node");

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    private static RedisCluster cluster;

    /** Two keys on different masters, {@code first} in the lower slot (the first group an acquire takes). */
    private static String first;
    private static String second;

    private RedisLockStore store;

    @BeforeAll
    static void chooseKeys() {
        cluster = redis.cluster();
        List<String> keys = IntStream.range(0, 50).mapToObj(i -> "account:" + i)
                .sorted(Comparator.comparingInt(RedisClusterLockStoreTest::slot)).toList();
        first = keys.get(0);
        second = keys.get(keys.size() - 1);
        assertThat(cluster.masterPortOf(slot(first))).as("the two keys' masters")
                .isNotEqualTo(cluster.masterPortOf(slot(second)));
    }

    /** The slot of a key's lock, as the cluster itself computes it. */
    private static int slot(String key) {
        return cluster.keySlot("locks:lock:" + key);
    }

    @BeforeEach
    void setUp() {
        store = new RedisLockStore(redis.connectionFactory(), "locks:", false);
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void multiSlotAcquireShouldTakeNothingWhenALaterSlotIsHeldAndEverythingOnceItIsFree() {
        assertThat(store.tryAcquire(List.of(second), BOB, 10_000).isTaken()).isTrue();

        Attempt blocked = store.tryAcquire(List.of(first, second), ALICE, 10_000);

        assertThat(blocked.isTaken()).isFalse();
        assertThat(blocked.heldKey()).isEqualTo(second);
        assertThat(store.get(first)).as("the earlier slot's key, given back in the same attempt").isNull();

        store.release(List.of(new Ownership(second, BOB.id(), 0)));
        Attempt taken = store.tryAcquire(List.of(first, second), ALICE, 10_000);
        assertThat(taken.isTaken()).isTrue();
        assertThat(store.get(first).token()).as("every key carries the lease's token").isEqualTo(taken.token());
        assertThat(store.get(second).token()).isEqualTo(taken.token());
        assertThat(store.release(List.of(new Ownership(first, ALICE.id(), 0), new Ownership(second, ALICE.id(), 0))))
                .isEmpty();
        assertThat(store.get(first)).isNull();
        assertThat(store.get(second)).isNull();
    }

    /**
     * The lease's token comes from its last slot; the first slot's counter lags unless the acquire raises it:
     * a later lease of the first key alone must still get a greater token.
     */
    @Test
    void tokensShouldExceedEveryEarlierTokenOfEachKeyAcrossSlots() {
        long last = 0;
        for (int i = 0; i < 50; i++) { // the second slot's counter runs ahead of the first's
            Attempt alone = store.tryAcquire(List.of(second), ALICE, 10_000);
            assertThat(alone.token()).isGreaterThan(last);
            last = alone.token();
            store.release(List.of(new Ownership(second, ALICE.id(), 0)));
        }
        for (int i = 0; i < 5; i++) {
            Attempt both = store.tryAcquire(List.of(first, second), BOB, 10_000);
            assertThat(both.token()).isGreaterThan(last);
            store.release(List.of(new Ownership(first, BOB.id(), 0), new Ownership(second, BOB.id(), 0)));
            Attempt firstAlone = store.tryAcquire(List.of(first), ALICE, 10_000);
            assertThat(firstAlone.token()).as("the first key's next lease").isGreaterThan(both.token());
            store.release(List.of(new Ownership(first, ALICE.id(), 0)));
            last = firstAlone.token();
        }
    }

    /**
     * A later slot's counter far ahead of the first slot's token (as a master whose clock runs ahead would put
     * it): the lease takes that slot's greater token, raises the first slot's counter to it in one more call,
     * and the first key's next lease still gets more.
     */
    @Test
    void aLaterSlotsCounterAheadShouldRaiseTheEarlierSlotsCounterToTheLeasesToken() {
        String ahead = Long.toString(System.currentTimeMillis() * 1_000L + 3_600_000_000L); // an hour ahead, in µs
        cluster.command(cluster.masterPortOf(slot(second)), "SET", "locks:fencing:{" + ClusterSlots.tag(slot(second)) + "}",
                ahead);
        store.tryAcquire(List.of(first), BOB, 10_000); // scripts loaded on the first key's master
        store.release(List.of(new Ownership(first, BOB.id(), 0)));

        resetStats();
        Attempt both = store.tryAcquire(List.of(first, second), ALICE, 10_000);
        assertThat(both.token()).as("the later slot's token").isGreaterThan(Long.parseLong(ahead));
        assertThat(scriptCalls()).as("two slots, one raise").isEqualTo(3);
        assertThat(store.get(first).token()).as("the first key's lock carries the lease's token").isEqualTo(both.token());
        store.release(List.of(new Ownership(first, ALICE.id(), 0), new Ownership(second, ALICE.id(), 0)));

        Attempt firstAlone = store.tryAcquire(List.of(first), BOB, 10_000);
        assertThat(firstAlone.token()).isGreaterThan(both.token());
        store.release(List.of(new Ownership(first, BOB.id(), 0)));
    }

    /**
     * SPEC 13 on a cluster: a shared acquire over two slots is all or nothing as an exclusive one (an exclusive
     * holder of the later slot's key blocks it, and the earlier slot's place is given back), holders of both
     * slots carry the lease's token after a raise, and every holder is listed.
     */
    @Test
    void multiSlotSharedAcquireShouldBeAllOrNothingAndRaiseTheEarlierSlotsToken() {
        assertThat(store.tryAcquire(List.of(second), BOB, 10_000).isTaken()).isTrue();
        Attempt blocked = store.tryAcquireShared(List.of(first, second), ALICE, 10_000, RemoteLockStore.SHARED, null,
                RemoteLockStore.ONE_ATTEMPT);
        assertThat(blocked.isTaken()).isFalse();
        assertThat(blocked.heldKey()).isEqualTo(second);
        assertThat(store.get(first)).as("the earlier slot's place, given back in the same attempt").isNull();
        store.release(List.of(new Ownership(second, BOB.id(), 0)));

        String ahead = Long.toString(System.currentTimeMillis() * 1_000L + 3_600_000_000L); // an hour ahead, in µs
        cluster.command(cluster.masterPortOf(slot(second)), "SET", "locks:fencing:{" + ClusterSlots.tag(slot(second)) + "}",
                ahead);
        Attempt both = store.tryAcquireShared(List.of(first, second), ALICE, 10_000, RemoteLockStore.SHARED, null,
                RemoteLockStore.ONE_ATTEMPT);
        Attempt more = store.tryAcquireShared(List.of(first), BOB, 10_000, RemoteLockStore.SHARED, null,
                RemoteLockStore.ONE_ATTEMPT);
        assertThat(both.token()).as("the later slot's token").isGreaterThan(Long.parseLong(ahead));
        assertThat(more.token()).as("the first key's next holder").isGreaterThan(both.token());
        assertThat(store.scan(10)).extracting(RemoteLock::key, RemoteLock::token).containsExactlyInAnyOrder(
                tuple(first, both.token()), tuple(first, more.token()), tuple(second, both.token()));
        assertThat(store.tryAcquire(List.of(first), BOB, 10_000).isTaken()).as("an exclusive acquire is kept out")
                .isFalse();

        assertThat(store.releaseShared(List.of(new Ownership(first, ALICE.id(), 0),
                new Ownership(second, ALICE.id(), 0), new Ownership(first, BOB.id(), 0)))).isEmpty();
        assertThat(store.scan(10)).isEmpty();
    }

    /**
     * 8 threads take random sets of keys spread over the 3 masters (one to four slots each), again and again:
     * each lease's token is greater than every token handed out before for each of its keys, whichever way
     * the slots' counters ran meanwhile. The counters start an hour ahead of the clock, a few thousand apart,
     * so that tokens follow the counters (not the clock, which would hide a counter left behind).
     */
    @Test
    void tokensShouldExceedEveryEarlierTokenOfEachKeyUnderConcurrencyAcrossSlots() throws Exception {
        List<String> keys = IntStream.range(0, 12).mapToObj(i -> "fenced:" + i).toList();
        assertThat(keys.stream().map(key -> cluster.masterPortOf(slot(key))).distinct()).hasSize(3);
        long ahead = System.currentTimeMillis() * 1_000L + 3_600_000_000L;
        for (String key : keys) {
            cluster.command(cluster.masterPortOf(slot(key)), "SET", "locks:fencing:{" + ClusterSlots.tag(slot(key)) + "}",
                    Long.toString(ahead + ThreadLocalRandom.current().nextInt(10_000)));
        }
        Map<String, Long> last = new ConcurrentHashMap<>();
        AtomicInteger leases = new AtomicInteger();
        List<String> failures = new CopyOnWriteArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Owner owner = new Owner("node:thread-" + t, "thread " + t);
                running.add(threads.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int round = 0; round < 60; round++) {
                        List<String> chosen = new ArrayList<>(keys);
                        Collections.shuffle(chosen, random);
                        chosen = chosen.subList(0, 1 + random.nextInt(4));
                        Attempt attempt = store.tryAcquire(chosen, owner, 10_000);
                        if (!attempt.isTaken()) {
                            continue;
                        }
                        for (String key : chosen) { // held: nobody else changes last[key] meanwhile
                            long before = last.getOrDefault(key, 0L);
                            if (attempt.token() <= before) {
                                failures.add(key + ": " + attempt.token() + " after " + before);
                            }
                            last.put(key, attempt.token());
                        }
                        leases.incrementAndGet();
                        store.release(chosen.stream().map(key -> new Ownership(key, owner.id(), 0)).toList());
                    }
                    return null;
                }));
            }
            for (Future<?> thread : running) {
                thread.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(failures).isEmpty();
        assertThat(leases.get()).as("leases taken").isGreaterThan(50);
        assertThat(store.scan(100)).as("nothing left held").isEmpty();
    }

    /** The cycle's scripts on Lettuce's shared cluster connection (issue 24): each call on its keys' master. */
    @Test
    @SuppressWarnings("rawtypes")
    void cycleScriptsShouldRunOnTheSharedClusterConnectionOnTheirKeysMaster() {
        CycleScripts.Native scripts = LettuceScripts.of(redis.connectionFactory(), redis.connectionFactory());
        RedisScript<List> set = RedisScript.of("redis.call('SET', KEYS[1], ARGV[1]) return {1}", List.class);
        for (String key : List.of(first, second)) {
            String redisKey = "native:{" + ClusterSlots.tag(slot(key)) + "}";
            List<?> reply = scripts.call(set, new byte[][] {redisKey.getBytes(StandardCharsets.UTF_8)},
                    new byte[][] {key.getBytes(StandardCharsets.UTF_8)});
            assertThat(reply).as("on the native connection").isEqualTo(List.of(1L));
            assertThat(cluster.command(cluster.masterPortOf(slot(key)), "GET", redisKey)).isEqualTo(key);
        }
    }

    @Test
    void scanShouldListTheLocksOfEveryMaster() {
        List<String> keys = IntStream.range(0, 30).mapToObj(i -> "held:" + i).toList();
        assertThat(keys.stream().map(key -> cluster.masterPortOf(slot(key))).distinct()).hasSize(3);
        assertThat(store.tryAcquire(keys, ALICE, 10_000).isTaken()).isTrue();

        assertThat(store.scan(4)).extracting(RemoteLock::key).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(store.scan(4, 7)).hasSize(7);
    }

    @Test
    void renewShouldExtendEveryKeyAcrossSlots() {
        List<String> keys = List.of(first, second);
        assertThat(store.tryAcquire(keys, ALICE, 1_000).isTaken()).isTrue();

        assertThat(store.renew(List.of(new Ownership(first, ALICE.id(), 60_000),
                new Ownership(second, ALICE.id(), 60_000)))).isEmpty();

        assertThat((Long) cluster.command(cluster.masterPortOf(slot(first)), "PTTL", "locks:lock:" + first))
                .isGreaterThan(30_000);
        assertThat((Long) cluster.command(cluster.masterPortOf(slot(second)), "PTTL", "locks:lock:" + second))
                .isGreaterThan(30_000);
    }

    @Test
    void aPrefixWithAnUnclosedHashTagShouldBeRefusedNamingTheProperty() {
        try (RedisLockStore braced = new RedisLockStore(redis.connectionFactory(), "{locks:", false)) {
            assertThatThrownBy(() -> braced.tryAcquire(List.of(first), ALICE, 10_000))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("locks.key-prefix '{locks:'");
        }
    }

    @Test
    void aPrefixWithAHashTagShouldPutEveryKeyInItsOneSlot() {
        try (RedisLockStore tagged = new RedisLockStore(redis.connectionFactory(), "{locks}:", false)) {
            Attempt taken = tagged.tryAcquire(List.of(first, second), ALICE, 10_000);
            assertThat(taken.isTaken()).isTrue();
            assertThat((Long) cluster.command(cluster.masterPortOf(cluster.keySlot("locks")), "EXISTS",
                    "{locks}:lock:" + first, "{locks}:lock:" + second)).isEqualTo(2);
        }
    }

    /** One script call per slot touched, the fencing raise included; one slot, one call. */
    @Test
    void roundTripsShouldBeOnePerSlotTouched() {
        List<String> oneSlot = List.of(first);
        List<String> keys = IntStream.range(0, 5).mapToObj(i -> "spread:" + i).toList();
        long slots = keys.stream().map(RedisClusterLockStoreTest::slot).distinct().count();
        assertThat(slots).isEqualTo(5);
        store.tryAcquire(List.of("warm-up"), ALICE, 10_000); // scripts loaded on that master, cluster mode known

        resetStats();
        assertThat(store.tryAcquire(oneSlot, ALICE, 10_000).isTaken()).isTrue();
        assertThat(scriptCalls()).as("one key").isEqualTo(1);
        store.release(List.of(new Ownership(first, ALICE.id(), 0)));

        store.release(List.of(new Ownership("warm-up", ALICE.id(), 0)));
        for (String key : keys) { // every master knows every script
            store.tryAcquire(List.of(key), BOB, 10_000);
            store.release(List.of(new Ownership(key, BOB.id(), 0)));
        }
        resetStats();
        assertThat(store.tryAcquire(keys, ALICE, 10_000).isTaken()).isTrue();
        assertThat(scriptCalls()).as("acquire over 5 slots").isEqualTo(5);
        resetStats();
        assertThat(store.release(keys.stream().map(key -> new Ownership(key, ALICE.id(), 0)).toList())).isEmpty();
        assertThat(scriptCalls()).as("release over 5 slots").isEqualTo(5);
    }

    private static void resetStats() {
        for (int port : cluster.masterPorts()) {
            cluster.command(port, "CONFIG", "RESETSTAT");
        }
    }

    /** EVALSHA and EVAL calls on every master since {@link #resetStats()}. */
    private static long scriptCalls() {
        long calls = 0;
        for (int port : cluster.masterPorts()) {
            for (String line : ((String) cluster.command(port, "INFO", "commandstats")).split("\r\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    String stats = line.substring(line.indexOf("calls=") + "calls=".length());
                    calls += Long.parseLong(stats.substring(0, stats.indexOf(',')));
                }
            }
        }
        return calls;
    }
}
