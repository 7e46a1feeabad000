package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.redis.test.RedisMonitor;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spi.RemoteLockStore;
import dev.locks.spi.RemoteLockStore.Attempt;
import dev.locks.spi.RemoteLockStore.Owner;
import dev.locks.spi.RemoteLockStore.Ownership;
import dev.locks.spi.RemoteLockStore.RemoteLock;
import dev.locks.spi.RemoteLockStore.Ticket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** The store's primitives against a real redis-server: SPEC section 8 below the engine. */
class RedisLockStoreTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Owner ALICE = new Owner("node-a:1", "alice @ node-a");
    private static final Owner BOB = new Owner("node-b:1", "bob @ node-b");

    private final List<RedisLockStore> stores = new ArrayList<>();

    /** A crashed waiter's ticket holds its place only for its lease, then neither blocks nor stays. */
    @Test
    void expiredTicketShouldNeitherBlockANewcomerNorStay() {
        RedisLockStore store = store();
        store.tryAcquire(List.of("k"), ALICE, 10_000);
        assertThat(store.tryAcquire(List.of("k"), BOB, 10_000, new Ticket("crashed", 0, 300)).ticketOrder())
                .isPositive();
        store.release(owned(ALICE, "k"));

        assertThat(store.tryAcquire(List.of("k"), ALICE, 10_000).heldKey()).as("a live ticket comes first")
                .isEqualTo("k");

        await().atMost(Duration.ofSeconds(5)).until(() -> store.tryAcquire(List.of("k"), ALICE, 10_000).isTaken());
        assertThat(redis.server().command("KEYS", "locks:queue*")).as("the expired ticket was dropped")
                .isEqualTo(List.of());
    }

    /**
     * A node's bulk refresh of its waiters' tickets ({@code refresh.lua}) extends the tickets still queued, by the
     * server's clock, and never places one again that its waiter took out meanwhile (issue 24: a few calls per
     * node, not one per waiter each second).
     */
    @Test
    void aRefreshShouldExtendTicketsStillQueuedAndNeverPlaceOneAgain() {
        RedisLockStore store = store();
        store.enqueue(List.of("refresh-k1", "refresh-k2"), new Ticket("refresh-t1", 0, 1_000));
        store.enqueue(List.of("refresh-k1"), new Ticket("refresh-t2", 0, 1_000));
        store.dequeue(List.of("refresh-k1"), "refresh-t2");
        assertThat(store.refreshesTickets()).isTrue();

        store.refreshTickets(List.of(new RemoteLockStore.Queued(List.of("refresh-k1", "refresh-k2"), "refresh-t1"),
                new RemoteLockStore.Queued(List.of("refresh-k1"), "refresh-t2")), 600_000);

        long inFiveMinutes = Instant.now().plus(Duration.ofMinutes(5)).toEpochMilli();
        for (String key : List.of("refresh-k1", "refresh-k2")) {
            @SuppressWarnings("unchecked")
            List<Object> deadlines = (List<Object>) redis.server().command("KEYS", "locks:queue-until:*" + key);
            assertThat(deadlines).as("the deadlines of " + key).hasSize(1);
            String queue = String.valueOf(deadlines.get(0));
            assertThat(Double.parseDouble(String.valueOf(redis.server().command("ZSCORE", queue, "refresh-t1"))))
                    .as("extended by ten minutes").isGreaterThan(inFiveMinutes);
            assertThat(redis.server().command("ZSCORE", queue, "refresh-t2")).as("taken out, not placed again")
                    .isNull();
        }
    }

    private static Ticket ticket(String id) {
        return new Ticket(id, 0, 60_000);
    }

    @AfterEach
    void closeStores() {
        stores.forEach(RedisLockStore::close);
    }

    private RedisLockStore store() {
        return store(redis.connectionFactory(), "locks:", true);
    }

    private RedisLockStore store(RedisConnectionFactory factory, String prefix, boolean notify) {
        RedisLockStore store = new RedisLockStore(factory, prefix, notify);
        stores.add(store);
        return store;
    }

    private static List<Ownership> owned(Owner owner, String... keys) {
        return Arrays.stream(keys).map(key -> new Ownership(key, owner.id(), 0)).toList();
    }

    /**
     * A release with a hold keeps the key locked until its acquire time plus the hold by the server's clock: its
     * owner's renewals (one in flight at the close, say) find it lost and never extend it; a key of another owner,
     * or one already released, is reported lost and left alone; the same release after the hold frees it.
     */
    @Test
    void releaseHeldShouldHoldTheKeyUntilItsTimeWithoutItsOwnersRenewalsAndNeverTouchAnothersKey() {
        RedisLockStore store = store();
        store.tryAcquire(List.of("held", "plain"), ALICE, 60_000);
        store.tryAcquire(List.of("bobs"), BOB, 60_000);

        RemoteLockStore.Held held = store.releaseHeld(List.of(new Ownership("held", ALICE.id(), 0, 3_000),
                new Ownership("plain", ALICE.id(), 0, 0), new Ownership("bobs", ALICE.id(), 0, 3_000)));

        assertThat(held.lost()).containsExactly("bobs");
        assertThat(held.heldMillis()).containsOnlyKeys("held");
        assertThat(held.heldMillis().get("held")).isBetween(1L, 3_000L);
        assertThat(store.get("plain")).isNull();
        assertThat(store.get("bobs").ownerId()).isEqualTo(BOB.id());
        assertThat(store.renew(List.of(new Ownership("held", ALICE.id(), 60_000)))).containsExactly("held");
        assertThat(store.tryAcquire(List.of("held"), BOB, 60_000).heldKey()).isEqualTo("held");
        assertThat(Duration.between(store.get("held").acquiredAt(), store.get("held").expiresAt()))
                .isBetween(Duration.ofMillis(2_995), Duration.ofMillis(3_005));

        await().atMost(Duration.ofSeconds(10)).until(() -> store.tryAcquire(List.of("held"), BOB, 60_000).isTaken());
        assertThat(store.releaseHeld(List.of(new Ownership("held", ALICE.id(), 0, 3_000))).lost())
                .as("the hold ended and Bob took it: Alice's late release leaves it")
                .containsExactly("held");
        assertThat(store.get("held").ownerId()).isEqualTo(BOB.id());
    }

    @Test
    void acquireShouldTakeEveryKeyOrNone() {
        RedisLockStore store = store();
        assertThat(store.tryAcquire(List.of("b"), ALICE, 10_000).isTaken()).isTrue();

        Attempt blocked = store.tryAcquire(List.of("a", "b", "c"), BOB, 10_000);

        assertThat(blocked.isTaken()).isFalse();
        assertThat(blocked.heldKey()).isEqualTo("b");
        assertThat(store.get("a")).isNull();
        assertThat(store.get("c")).isNull();
        assertThat(store.get("b").ownerId()).isEqualTo(ALICE.id());
        assertThat(store.tryAcquire(List.of("a", "c"), BOB, 10_000).isTaken()).isTrue();
    }

    @Test
    void lockShouldRecordOwnerTokenAndServerTimes() {
        RedisLockStore store = store();
        Instant before = Instant.now().minusSeconds(1);

        long token = store.tryAcquire(List.of("k"), ALICE, 30_000).token();

        RemoteLock lock = store.get("k");
        assertThat(lock.key()).isEqualTo("k");
        assertThat(lock.ownerId()).isEqualTo(ALICE.id());
        assertThat(lock.ownerDescription()).isEqualTo(ALICE.description());
        assertThat(lock.token()).isEqualTo(token);
        assertThat(lock.acquiredAt()).isBetween(before, Instant.now().plusSeconds(1));
        assertThat(Duration.between(lock.acquiredAt(), lock.expiresAt()))
                .isBetween(Duration.ofSeconds(29), Duration.ofSeconds(31));
    }

    /** SPEC "Infinite lock timeout on a distributed backend": never a key without expiry in Redis. */
    @Test
    void zeroLeaseShouldBeHeldUnderTheStoresLeaseAndShowNoExpiry() {
        RedisLockStore store = store();
        store.tryAcquire(List.of("k"), ALICE, 0);

        assertThat(store.get("k").expiresAt()).as("the lease the caller sees never expires").isEqualTo(Instant.MAX);
        assertThat((Long) redis.server().command("PTTL", "locks:lock:k")).as("held under the 30 s lease in Redis")
                .isBetween(29_000L, 30_000L);
    }

    @Test
    void tokensShouldStrictlyIncreaseAcrossNodes() {
        RedisLockStore one = store(redis.connectionFactory(), "locks:", false);
        RedisLockStore two = store(redis.newConnectionFactory(), "locks:", false);
        long previous = 0;
        for (int i = 0; i < 50; i++) {
            RedisLockStore node = i % 2 == 0 ? one : two;
            List<String> keys = i % 3 == 0 ? List.of("a", "b", "c") : List.of("k" + i);
            long token = node.tryAcquire(keys, ALICE, 10_000).token();
            assertThat(token).isGreaterThan(previous);
            previous = token;
            node.release(owned(ALICE, keys.toArray(String[]::new)));
        }
        assertThat(redis.server().command("GET", "locks:fencing")).isEqualTo(Long.toString(previous));
    }

    /** The counter ahead of the server's clock (a clock set back, a replica's clock behind): it still goes up by one. */
    @Test
    void tokensShouldFollowACounterAheadOfTheClock() {
        RedisLockStore store = store();
        long ahead = 3_000_000_000_000_000L; // microseconds of the year 2065
        redis.server().command("SET", "locks:fencing", Long.toString(ahead));

        assertThat(store.tryAcquire(List.of("a"), ALICE, 10_000).token()).isEqualTo(ahead + 1);
        assertThat(store.tryAcquire(List.of("b", "c"), ALICE, 10_000).token()).isEqualTo(ahead + 2);
        assertThat(redis.server().command("GET", "locks:fencing")).isEqualTo(Long.toString(ahead + 2));
    }

    @Test
    void tokensShouldStayAboveThoseIssuedBeforeTheCounterWasLost() {
        RedisLockStore store = store();
        long before = store.tryAcquire(List.of("a"), ALICE, 10_000).token();

        redis.server().flushAll(); // as a restart without persistence, or a failover to a replica that lagged

        assertThat(store.tryAcquire(List.of("a"), BOB, 10_000).token()).isGreaterThan(before);
    }

    @Test
    void releaseShouldDeleteOnlyWhatItsOwnerStillHoldsAndReturnTheLostKeys() {
        RedisLockStore store = store();
        store.tryAcquire(List.of("a", "b", "c"), ALICE, 10_000);
        assertThat(store.forceRelease("b")).isTrue();
        store.tryAcquire(List.of("b"), BOB, 10_000);
        store.tryAcquire(List.of("x"), ALICE, 50);
        await().atMost(Duration.ofSeconds(5)).until(() -> store.get("x") == null);

        assertThat(store.release(owned(ALICE, "a", "b", "c", "x"))).containsExactlyInAnyOrder("b", "x");

        assertThat(store.get("a")).isNull();
        assertThat(store.get("c")).isNull();
        assertThat(store.get("b").ownerId()).isEqualTo(BOB.id());
        assertThat(store.release(owned(ALICE, "a"))).containsExactly("a");
        assertThat(store.release(List.of())).isEmpty();
    }

    /**
     * A lock is one string starting with its owner's id (lock-value.lua): an id that begins another's, and a
     * description with spaces, digits, colons and line breaks, must neither confuse ownership nor the reading.
     */
    @Test
    void ownershipShouldBeTheWholeOwnerIdWhateverTheDescription() {
        RedisLockStore store = store();
        Owner shortId = new Owner("node:1", "1 2 0 worker\n@ node:1 ");
        Owner longId = new Owner("node:10", "");
        long token = store.tryAcquire(List.of("a"), longId, 10_000).token();
        store.tryAcquire(List.of("b"), shortId, 10_000);

        assertThat(store.release(owned(shortId, "a"))).as("node:1 does not own node:10's lock").containsExactly("a");
        assertThat(store.renew(List.of(new Ownership("a", shortId.id(), 10_000)))).containsExactly("a");
        assertThat(store.release(owned(longId, "b"))).containsExactly("b");

        RemoteLock a = store.get("a");
        assertThat(a.ownerId()).isEqualTo(longId.id());
        assertThat(a.ownerDescription()).isEmpty();
        assertThat(a.token()).isEqualTo(token);
        RemoteLock b = store.get("b");
        assertThat(b.ownerId()).isEqualTo(shortId.id());
        assertThat(b.ownerDescription()).isEqualTo(shortId.description());
        assertThat(b.token()).isGreaterThan(token);
        assertThat(store.release(owned(longId, "a"))).isEmpty();
        assertThat(store.release(owned(shortId, "b"))).isEmpty();
        assertThat(store.get("a")).isNull();
        assertThat(store.get("b")).isNull();
    }

    @Test
    void renewShouldExtendOnlyTheOwnersLeases() {
        RedisLockStore store = store();
        store.tryAcquire(List.of("a", "b"), ALICE, 5_000);
        store.tryAcquire(List.of("c"), BOB, 10_000);

        List<Ownership> renewal = List.of(new Ownership("a", ALICE.id(), 10_000),
                new Ownership("b", ALICE.id(), 0), new Ownership("c", ALICE.id(), 10_000),
                new Ownership("gone", ALICE.id(), 10_000));
        assertThat(store.renew(renewal)).containsExactlyInAnyOrder("c", "gone");

        assertThat(Duration.between(Instant.now(), store.get("a").expiresAt())).isGreaterThan(Duration.ofSeconds(5));
        assertThat((Long) redis.server().command("PTTL", "locks:lock:b")).as("0: the store's lease, never none")
                .isBetween(29_000L, 30_000L);
        assertThat(store.get("c").ownerId()).isEqualTo(BOB.id());
    }

    @Test
    void leaseShouldExpireWithoutRenewal() {
        RedisLockStore store = store();
        store.tryAcquire(List.of("k"), ALICE, 500);

        assertThat(store.tryAcquire(List.of("k"), BOB, 500).heldKey()).isEqualTo("k");
        await().atMost(Duration.ofSeconds(5)).until(() -> store.tryAcquire(List.of("k"), BOB, 10_000).isTaken());
        assertThat(store.get("k").ownerId()).isEqualTo(BOB.id());
    }

    @Test
    void scanShouldListEveryLockInBatchesWithThePrefixStripped() {
        RedisLockStore store = store();
        List<String> keys = IntStream.range(0, 250).mapToObj(i -> "key:" + i).toList();
        for (int i = 0; i < keys.size(); i += 10) {
            store.tryAcquire(keys.subList(i, i + 10), ALICE, 60_000);
        }
        store.tryAcquire(List.of("fencing"), BOB, 0); // a caller's key that reads like the counter
        redis.server().command("SET", "locks:something-else", "x");
        redis.server().command("HSET", "locks:lock:not-a-lock", "field", "x");
        redis.server().command("SET", "other:lock:k", "x");

        List<RemoteLock> locks;
        try (RedisMonitor monitor = new RedisMonitor(redis.server())) {
            locks = store.scan(7);
            List<String> sent = monitor.commandsSent();
            assertThat(sent).doesNotContain("keys").contains("scan");
            assertThat(sent.stream().filter("evalsha"::equals)).as("one read per batch of 7").hasSize(36);
        }

        assertThat(locks).extracting(RemoteLock::key)
                .containsExactlyInAnyOrderElementsOf(concat(keys, List.of("fencing")));
        assertThat(locks).filteredOn(lock -> lock.key().startsWith("key:"))
                .allSatisfy(lock -> assertThat(lock.ownerId()).isEqualTo(ALICE.id()));
        assertThat(store.get("fencing").expiresAt()).isEqualTo(Instant.MAX);
        assertThat(store.get("not-a-lock")).isNull();
    }

    @Test
    void prefixWithGlobCharactersShouldBeMatchedLiterally() {
        RedisLockStore odd = store(redis.connectionFactory(), "t[1]*?:", false);
        RedisLockStore plain = store(redis.connectionFactory(), "t1x?:", false);
        odd.tryAcquire(List.of("a"), ALICE, 10_000);
        plain.tryAcquire(List.of("b"), ALICE, 10_000);

        assertThat(odd.scan(10)).extracting(RemoteLock::key).containsExactly("a");
        assertThat(plain.scan(10)).extracting(RemoteLock::key).containsExactly("b");
        assertThat(odd.tryAcquire(List.of("b"), BOB, 10_000).isTaken()).as("prefixes are namespaces").isTrue();
    }

    @Test
    void forceReleaseShouldRemoveAnyOwnersLockAndTellEveryNode() {
        RedisLockStore store = store();
        Queue<String> released = new ConcurrentLinkedQueue<>();
        store.subscribe(released::add, () -> { });
        store.tryAcquire(List.of("k"), ALICE, 10_000);

        assertThat(store.forceRelease("k")).isTrue();
        assertThat(store.forceRelease("k")).isFalse();

        assertThat(store.get("k")).isNull();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(released).containsExactly("k"));
    }

    @Test
    void releaseShouldReachTheOneSubscriptionOfEveryNode() {
        RedisLockStore one = store();
        RedisLockStore two = store(redis.newConnectionFactory(), "locks:", true);
        Queue<String> seenByOne = new ConcurrentLinkedQueue<>();
        Queue<String> seenByTwo = new ConcurrentLinkedQueue<>();
        one.subscribe(seenByOne::add, () -> { });
        two.subscribe(seenByTwo::add, () -> { });
        String odd = "we:ird 12:key\nwith ünïcödé";
        one.tryAcquire(List.of("a", odd), ALICE, 10_000);
        two.tryAcquire(List.of("b"), BOB, 10_000);
        // somebody waits for each of them: the releases are published
        assertThat(two.tryAcquire(List.of("a"), BOB, 10_000, ticket("t1")).isTaken()).isFalse();
        assertThat(two.tryAcquire(List.of(odd), BOB, 10_000, ticket("t2")).isTaken()).isFalse();
        assertThat(one.tryAcquire(List.of("b"), ALICE, 10_000, ticket("t3")).isTaken()).isFalse();

        one.release(owned(ALICE, "a", odd));
        two.release(owned(BOB, "b"));
        one.release(owned(ALICE, "a")); // lost: publishes nothing

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(seenByOne).containsExactlyInAnyOrder("a", odd, "b");
            assertThat(seenByTwo).containsExactlyInAnyOrder("a", odd, "b");
        });
        assertThat(redis.server().subscribers("locks:released")).as("one subscription per node").isEqualTo(2);
        assertThatThrownBy(() -> one.subscribe(key -> { }, () -> { })).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void releaseNobodyWaitsForShouldPublishNothing() {
        RedisLockStore store = store();
        Queue<String> released = new ConcurrentLinkedQueue<>();
        store.subscribe(released::add, () -> { });
        await().atMost(Duration.ofSeconds(5)).until(() -> store.subscriptionConfirmations() == 1);
        redis.server().command("CONFIG", "RESETSTAT");
        store.tryAcquire(List.of("quiet"), ALICE, 10_000);
        store.tryAcquire(List.of("waited"), ALICE, 10_000);
        assertThat(store.tryAcquire(List.of("waited"), BOB, 10_000).isTaken()).as("no ticket: nobody waits").isFalse();
        assertThat(store.tryAcquire(List.of("waited"), BOB, 10_000, ticket("bob")).ticketOrder()).isPositive();

        store.release(owned(ALICE, "quiet"));
        store.release(owned(ALICE, "waited"));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(released).containsExactly("waited"));
        assertThat(redis.server().commandCalls().get("publish")).isEqualTo(1L);
        store.dequeue(List.of("waited"), "bob");
        assertThat(redis.server().command("KEYS", "locks:queue*")).as("the queue went with its last waiter")
                .isEqualTo(List.of());
    }

    @Test
    void notifyOffShouldSubscribeToNothing() {
        RedisLockStore store = store(redis.connectionFactory(), "locks:", false);

        assertThat(store.subscribe(key -> { }, () -> { })).isFalse();

        assertThat(redis.server().subscribers("locks:released")).isZero();
    }

    @Test
    void closeShouldEndTheSubscription() {
        RedisLockStore store = store();
        store.subscribe(key -> { }, () -> { });
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.server().subscribers("locks:released") == 1);

        store.close();

        await().atMost(Duration.ofSeconds(5)).until(() -> redis.server().subscribers("locks:released") == 0);
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }
}
