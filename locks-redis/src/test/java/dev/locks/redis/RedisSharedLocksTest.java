package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.contract.Threads;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SPEC 13 across nodes on Redis: two registries, each on its own connection factory, as two nodes. What one
 * registry cannot show (the contract suite's registry is one node): holders counted across nodes, a mismatched
 * number of permits refused from another node, a writer on one node not passed by a later reader on the other,
 * renewals that keep a lease past its lock timeout, and nothing left behind in Redis.
 */
class RedisSharedLocksTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final AcquireOptions WAITING = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofSeconds(5)).withWaitTime(Threads.BOUND);

    private final List<RedisLockRegistry> nodes = new ArrayList<>();
    private final Threads threads = new Threads();

    @AfterEach
    void close() {
        threads.close();
        nodes.forEach(RedisLockRegistry::close);
    }

    private RedisLockRegistry node(boolean watchdog) {
        RedisLockRegistry node = RedisLockRegistry.builder(redis.newConnectionFactory())
                .cleanupInterval(Duration.ZERO).watchdog(watchdog).build();
        nodes.add(node);
        return node;
    }

    @Test
    void readersOnTwoNodesShouldHoldAtOnceAndKeepAWriterOfEitherOut() throws Exception {
        RedisLockRegistry a = node(false);
        RedisLockRegistry b = node(false);
        Lease onA = a.tryAcquire(List.of("config"), AcquireOptions.defaults().shared()).orElseThrow();
        Lease onB = b.tryAcquire(List.of("config"), AcquireOptions.defaults().shared()).orElseThrow();
        assertThat(onB.fencingToken()).isGreaterThan(onA.fencingToken());
        assertThat(threads.run(() -> b.tryAcquire(List.of("config")))).isEmpty(); // not an upgrade: another thread
        assertThat(a.heldLocks()).extracting(HeldLock::key).containsExactly("config", "config");
        assertThat(b.heldLocks()).extracting(HeldLock::fencingToken)
                .containsExactlyInAnyOrder(onA.fencingToken(), onB.fencingToken());
        assertThat(a.heldLocks()).extracting(HeldLock::owner).allMatch(owner -> owner.contains("(shared)"));
        onA.close();
        assertThat(a.tryAcquire(List.of("config"))).isEmpty();
        onB.close();
        Lease writer = b.tryAcquire(List.of("config")).orElseThrow();
        assertThat(writer.fencingToken()).isGreaterThan(onB.fencingToken());
        assertThat(a.tryAcquire(List.of("config"), AcquireOptions.defaults().shared())).isEmpty();
        writer.close();
        assertThat(redisKeys()).as("nothing left behind").containsOnly("locks:fencing");
    }

    @Test
    void permitsShouldBeCountedAcrossNodesAndAFreedOneGoToTheWaiterOfTheOtherNode() throws Exception {
        RedisLockRegistry a = node(false);
        RedisLockRegistry b = node(false);
        AcquireOptions three = WAITING.withPermits(3);
        Lease first = a.acquire(List.of("tenant:7"), three);
        Lease second = threads.run(() -> a.acquire(List.of("tenant:7"), three));
        Lease third = b.acquire(List.of("tenant:7"), three);
        assertThat(b.tryAcquire(List.of("tenant:7"), three)).as("the 4th, on either node").isEmpty();
        assertThat(a.tryAcquire(List.of("tenant:7"), three)).isEmpty();
        Future<Lease> fourth = threads.start(() -> b.acquire(List.of("tenant:7"), three));
        await().atMost(Threads.BOUND).until(() -> redisKeys().contains("locks:queue:tenant:7"));

        second.close(); // the retry interval is 5 s: the release notice wakes it
        try (Lease lease = Threads.get(fourth)) {
            assertThat(lease.fencingToken()).isGreaterThan(third.fencingToken());
            assertThat(a.heldLocks()).hasSize(3);
        }
        first.close();
        third.close();
        assertThat(redisKeys()).as("nothing left behind").containsOnly("locks:fencing");
    }

    @Test
    void anotherNumberOfPermitsFromAnotherNodeShouldBeRefusedNamingBoth() throws Exception {
        RedisLockRegistry a = node(false);
        RedisLockRegistry b = node(false);
        try (Lease held = a.acquire(List.of("tenant:1"), WAITING.withPermits(3))) {
            assertThatThrownBy(() -> b.tryAcquire(List.of("tenant:1"), WAITING.withPermits(5)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'tenant:1'")
                    .hasMessageContaining("5 permits").hasMessageContaining("3 permits");
            assertThatThrownBy(() -> b.acquire(List.of("tenant:1"), WAITING.shared()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared")
                    .hasMessageContaining("3 permits");
            assertThat(b.tryAcquire(List.of("tenant:1"))).as("an exclusive acquire is simply kept out").isEmpty();
            assertThat(held.isHeld()).isTrue();
        }
        try (Lease exclusive = a.acquire(List.of("tenant:1"))) {
            assertThatThrownBy(() -> b.tryAcquire(List.of("tenant:1"), WAITING.withPermits(4)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4 permits")
                    .hasMessageContaining("1 permit");
            assertThat(exclusive.isHeld()).isTrue();
        }
        assertThat(redisKeys()).as("no ticket placed by the refused calls").containsOnly("locks:fencing");
    }

    @Test
    void aWriterWaitingOnOneNodeShouldNotBePassedByALaterReaderOfTheOther() throws Exception {
        RedisLockRegistry a = node(false);
        RedisLockRegistry b = node(false);
        Lease reader = a.acquire(List.of("q"), WAITING.shared());
        Future<Lease> writer = threads.start(() -> b.acquire(List.of("q"), WAITING));
        await().atMost(Threads.BOUND).until(() -> redisKeys().contains("locks:queue:q"));

        assertThat(a.tryAcquire(List.of("q"), AcquireOptions.defaults().shared()))
                .as("a later reader of the other node waits behind the writer").isEmpty();
        Future<Lease> laterReader = threads.start(() -> a.acquire(List.of("q"), WAITING.shared()));
        reader.close();
        Lease written = Threads.get(writer);
        assertThat(laterReader).isNotDone();
        assertThat(a.heldLocks()).extracting(HeldLock::fencingToken).containsExactly(written.fencingToken());
        written.close();
        try (Lease read = Threads.get(laterReader)) {
            assertThat(read.fencingToken()).isGreaterThan(written.fencingToken());
        }
    }

    @Test
    void theWatchdogShouldKeepSharedAndCountedLeasesPastTheirLockTimeout() throws Exception {
        RedisLockRegistry a = node(true);
        RedisLockRegistry b = node(false);
        AcquireOptions brief = WAITING.withLockTimeout(Duration.ofMillis(600));
        Lease reader = a.acquire(List.of("k"), brief.shared());
        Lease permit = a.acquire(List.of("p"), brief.withPermits(2));
        Lease other = b.acquire(List.of("p"), brief.withPermits(2)); // not renewed: its node has no watchdog

        Thread.sleep(1_500);
        assertThat(reader.isHeld()).isTrue();
        assertThat(permit.isHeld()).isTrue();
        assertThat(other.isHeld()).isFalse();
        assertThat(b.tryAcquire(List.of("k"))).as("the renewed reader keeps a writer out").isEmpty();
        try (Lease freed = b.tryAcquire(List.of("p"), brief.withPermits(2)).orElseThrow()) {
            assertThat(b.tryAcquire(List.of("p"), brief.withPermits(2))).as("the renewed permit holds").isEmpty();
            assertThat(freed.fencingToken()).isGreaterThan(other.fencingToken());
        }
        reader.close();
        permit.close();
        other.close();
        assertThat(redisKeys()).as("nothing left behind").containsOnly("locks:fencing");
    }

    @Test
    void aClosingNodeShouldGiveBackItsPlacesAtOnce() throws Exception {
        RedisLockRegistry a = node(false);
        RedisLockRegistry b = node(false);
        a.acquire(List.of("tenant:2"), WAITING.withPermits(2));
        a.acquire(List.of("tenant:2"), WAITING.withPermits(2));
        assertThat(b.tryAcquire(List.of("tenant:2"), WAITING.withPermits(2))).isEmpty();

        a.close();

        try (Lease lease = b.tryAcquire(List.of("tenant:2"), WAITING.withPermits(2)).orElseThrow()) {
            assertThat(b.heldLocks()).hasSize(1);
        }
    }

    private static Set<String> redisKeys() {
        Set<String> keys = new TreeSet<>();
        for (Object key : (List<?>) redis.server().command("KEYS", "*")) {
            keys.add((String) key);
        }
        return keys;
    }
}
