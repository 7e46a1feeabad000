package dev.locks.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.RemoteComputeStore.Claim;
import dev.locks.spi.RemoteComputeStore.Claimant;
import dev.locks.spi.RemoteComputeStore.Completion;
import dev.locks.spi.RemoteComputeStore.Entry;
import dev.locks.spi.RemoteComputeStore.Miss;
import dev.locks.spi.RemoteComputeStore.Notice;
import dev.locks.spi.RemoteComputeStore.Ticket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The atomic steps of a {@link RemoteComputeStore}, one by one, as its javadoc states them: what every store passes,
 * whatever its server. The core's protocol (who computes, who waits, who takes over) is tested once, on top, by
 * {@link ComputeCacheContract} and {@link ComputeNodesContract}; this suite tests the store beneath it directly, so
 * that a new backend learns which step it gets wrong. A backend's test subclasses it in a few lines: it gives
 * {@link #newStore()}, a new node's store on one shared server.
 *
 * <p>Values are bytes here, stored and compared as they are (the core serializes); notices are text, published as
 * they are (the core frames them). Expiries run on the server's clock, in real time: the tests use compute timeouts
 * and TTLs of a few hundred milliseconds and wait for them with a bound, never a fixed sleep of a result. Each test
 * uses keys of its own.
 */
public abstract class RemoteComputeStoreContract {

    /** How long the short compute timeouts and TTLs of the expiry tests last. */
    protected static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(1);
    private static final Duration BOUND = Duration.ofSeconds(30);

    private final List<RemoteComputeStore> stores = new CopyOnWriteArrayList<>();
    private final AtomicInteger claims = new AtomicInteger();
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private RemoteComputeStore store;

    /**
     * A new node's store on the server of the test class (each call another node: its own connections and
     * subscription, the same data). The contract closes it after the test.
     */
    protected abstract RemoteComputeStore newStore();

    /** The first node's store. */
    protected final RemoteComputeStore store() {
        if (store == null) {
            store = node();
        }
        return store;
    }

    /** Another node's store on the same server. */
    protected final RemoteComputeStore node() {
        RemoteComputeStore node = newStore();
        stores.add(node);
        return node;
    }

    @AfterEach
    void closeStores() {
        stores.forEach(RemoteComputeStore::close);
    }

    /** A key of this test run: {@code name} and a suffix of its own. */
    protected final String key(String name) {
        return name + ":" + run;
    }

    @Test
    void unknownKeyShouldHaveNoValueNorEntry() {
        String key = key("unknown");

        assertThat(store().get(key)).isNull();
        assertThat(store().entry(key)).isNull();
        assertThat(store().invalidatedValue(key, "no-miss")).isNull();
    }

    @Test
    void firstClaimShouldComputeAndTheNextWaitForIt() {
        String key = key("first");
        Instant before = Instant.now().minusSeconds(5);
        Claimant first = claimant("first hint", TIMEOUT, TTL);

        Claim.Compute compute = (Claim.Compute) store().claim(key, first, null);

        assertThat(compute.miss()).isEqualTo(new Miss(first.newMiss(), 0, "first hint", TTL.toMillis()));
        assertThat(compute.ticket()).isEqualTo(new Ticket(first.newMiss(), 0, first.computer()));
        Claim.Wait wait = (Claim.Wait) node().claim(key, claimant("second hint", TIMEOUT, TTL), null);
        assertThat(wait.miss()).isEqualTo(compute.miss());
        assertThat(wait.computer()).isEqualTo(first.description());
        assertThat(wait.pttlMillis()).isBetween(1L, TIMEOUT.toMillis());
        assertThat(wait.startedAt()).isBetween(before, Instant.now().plusSeconds(5));
    }

    @Test
    void completionShouldStoreTheBytesAsTheyAreForEveryNode() {
        String key = key("bytes");
        byte[] value = everyByte();
        Claim.Compute turn = compute(key);

        assertThat(store().complete(key, turn.ticket(), completion(value, null))).isTrue();

        assertThat(store().get(key)).isEqualTo(value);
        assertThat(node().get(key)).isEqualTo(value);
        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), null)).isInstanceOfSatisfying(Claim.Hit.class,
                hit -> assertThat(hit.value()).isEqualTo(value));
    }

    @Test
    void keysShouldBeTakenAsTheyAreWhateverTheirCharacters() {
        List<String> keys = List.of(key("a\u0000b"), key("\u0001"), key("ключ €"), key("k".repeat(2_000)),
                key("a:b{c}"));
        for (String key : keys) {
            Claim.Compute turn = compute(key);
            assertThat(store().complete(key, turn.ticket(), completion(bytes(key), null))).as(key).isTrue();
        }

        for (String key : keys) {
            assertThat(store().get(key)).as(key).isEqualTo(bytes(key));
        }
        assertThat(store().get(key("a"))).isNull();
    }

    @Test
    void nullResultShouldStoreNothingAndReachTheWaiterOfItsMiss() {
        String key = key("null");
        Claim.Compute turn = compute(key);

        assertThat(store().complete(key, turn.ticket(), completion(null, null))).isTrue();

        assertThat(store().get(key)).isNull();
        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), turn.miss()))
                .usingRecursiveComparison().isEqualTo(new Claim.Done(Notice.Outcome.NULL, null, null, null));
        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), null)).as("a new caller starts a new miss")
                .isInstanceOf(Claim.Compute.class);
    }

    @Test
    void failureShouldReachTheWaiterOfItsMissWithItsClassAndMessage() {
        String key = key("failed");
        String silent = key("failed-silently");
        Claim.Compute turn = compute(key);
        Claim.Compute quiet = compute(silent);

        assertThat(store().fail(key, turn.ticket(), "java.io.IOException", "boom: é\u0000", "n")).isTrue();
        assertThat(store().fail(silent, quiet.ticket(), "java.lang.IllegalStateException", null, "n")).isTrue();

        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), turn.miss()))
                .usingRecursiveComparison().isEqualTo(new Claim.Done(Notice.Outcome.FAILED, null, "java.io.IOException", "boom: é\u0000"));
        assertThat(node().claim(silent, claimant("", TIMEOUT, TTL), quiet.miss()))
                .usingRecursiveComparison().isEqualTo(new Claim.Done(Notice.Outcome.FAILED, null, "java.lang.IllegalStateException", null));
        assertThat(store().get(key)).as("nothing stored").isNull();
        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), null)).as("a new caller starts a new miss")
                .isInstanceOf(Claim.Compute.class);
    }

    @Test
    void waiterOfAMissWhoseValueIsStoredShouldHitIt() {
        String key = key("hit");
        Claim.Compute turn = compute(key);
        store().complete(key, turn.ticket(), completion(bytes("v"), null));

        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), turn.miss())).isInstanceOfSatisfying(Claim.Hit.class,
                hit -> assertThat(hit.value()).isEqualTo(bytes("v")));
    }

    /**
     * A waiter that reads after its miss's short-lived value expired (a slow notice, a loaded node) still gets
     * that value, not a miss of its own: one miss, one computation, whatever the TTL. Seen as a second computation
     * in {@code ComputeCacheContract.missesOnSeveralNodesShouldComputeOnce} (1 s TTL) on PostgreSQL in a loaded CI.
     */
    @Test
    void waiterOfAMissWhoseShortLivedValueExpiredShouldStillGetIt() {
        String key = key("expired-value");
        Claim.Compute turn = compute(key);
        RemoteComputeStore other = node();
        assertThat(other.claim(key, claimant("", TIMEOUT, TTL), null)).isInstanceOf(Claim.Wait.class);
        store().complete(key, turn.ticket(), completion(bytes("v"), SHORT));

        await().atMost(BOUND).pollInterval(Duration.ofMillis(50)).until(() -> store().get(key) == null);

        assertThat(other.claim(key, claimant("", TIMEOUT, TTL), turn.miss()))
                .usingRecursiveComparison().isEqualTo(new Claim.Done(Notice.Outcome.UNSTORED, bytes("v"), null, null));
        assertThat(other.claim(key, claimant("", TIMEOUT, TTL), null)).as("a new caller starts a new miss")
                .isInstanceOf(Claim.Compute.class);
    }

    @Test
    void waiterShouldTakeOverTheMissOnceItsComputeLockExpiresWithTheFirstHintAndTtl() {
        String key = key("takeover");
        Claimant first = claimant("first hint", SHORT, TTL);
        RemoteComputeStore other = node();
        other.get(key); // connected before the short lock starts
        Claim.Compute stalled = (Claim.Compute) store().claim(key, first, null);
        Claimant waiter = claimant("own hint", TIMEOUT, Duration.ofMinutes(7));
        assertThat(other.claim(key, waiter, stalled.miss())).as("while its lock runs").isInstanceOf(Claim.Wait.class);

        Claim.Compute taken = (Claim.Compute) await().atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> other.claim(key, claimant("own hint", TIMEOUT, Duration.ofMinutes(7)), stalled.miss()),
                        Claim.Compute.class::isInstance);

        assertThat(taken.miss()).isEqualTo(new Miss(first.newMiss(), 1, "first hint", TTL.toMillis()));
        assertThat(taken.ticket().miss()).isEqualTo(first.newMiss());
        assertThat(taken.ticket().turn()).isEqualTo(1);
        assertThat(store().claim(key, claimant("", TIMEOUT, TTL), null)).as("its new computer holds it")
                .isInstanceOfSatisfying(Claim.Wait.class, wait -> assertThat(wait.miss()).isEqualTo(taken.miss()));
    }

    @Test
    void callerThatAwaitsNothingShouldStartANewMissOnceTheLockExpires() {
        String key = key("expired");
        Claim.Compute stalled = (Claim.Compute) store().claim(key, claimant("", SHORT, TTL), null);
        Claimant fresh = claimant("fresh", TIMEOUT, TTL);

        Claim claim = await().atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> node().claim(key, fresh, null), Claim.Compute.class::isInstance);

        assertThat(((Claim.Compute) claim).miss()).isEqualTo(new Miss(fresh.newMiss(), 0, "fresh", TTL.toMillis()));
        assertThat(((Claim.Compute) claim).miss().id()).isNotEqualTo(stalled.miss().id());
    }

    @Test
    void firstCompletionFromAnyComputerOfTheMissShouldWinAndOnlyTheCurrentComputerFail() {
        String key = key("first-wins");
        RemoteComputeStore other = node();
        other.get(key);
        Claim.Compute stalled = (Claim.Compute) store().claim(key, claimant("", SHORT, TTL), null);
        Claim.Compute taken = (Claim.Compute) await().atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> other.claim(key, claimant("", TIMEOUT, TTL), stalled.miss()),
                        Claim.Compute.class::isInstance);

        assertThat(store().fail(key, stalled.ticket(), "E", "demoted", "n")).as("its turn passed").isFalse();
        assertThat(store().complete(key, stalled.ticket(), completion(bytes("late"), null)))
                .as("a demoted computer's completion still counts").isTrue();

        assertThat(other.complete(key, taken.ticket(), completion(bytes("second"), null))).isFalse();
        assertThat(other.fail(key, taken.ticket(), "E", "over", "n")).isFalse();
        assertThat(store().get(key)).isEqualTo(bytes("late"));
    }

    @Test
    void ticketOfAnUnknownMissShouldChangeNothing() {
        String key = key("unknown-miss");
        Claim.Compute turn = compute(key);
        Ticket stranger = new Ticket("other-miss", 0, "other-computer");

        assertThat(store().complete(key, stranger, completion(bytes("x"), null))).isFalse();
        assertThat(store().fail(key, stranger, "E", "m", "n")).isFalse();
        assertThat(store().fail(key, new Ticket(turn.ticket().miss(), 0, "other-computer"), "E", "m", "n"))
                .as("not its current computer").isFalse();

        assertThat(store().get(key)).isNull();
        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), null)).isInstanceOf(Claim.Wait.class);
    }

    @Test
    void valueShouldExpireAfterItsTtlAndTheMissTtlShouldApplyWhenTheCompletionGivesNone() {
        String given = key("ttl-given");
        String inherited = key("ttl-inherited");
        String forever = key("ttl-none");
        store().complete(given, compute(given).ticket(), completion(bytes("v"), SHORT));
        Claim.Compute short_ = (Claim.Compute) store().claim(inherited, claimant("", TIMEOUT, SHORT), null);
        store().complete(inherited, short_.ticket(), completion(bytes("v"), null));
        store().complete(forever, compute(forever).ticket(), completion(bytes("v"), Duration.ZERO));

        await().atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> store().get(given) == null && store().get(inherited) == null);

        assertThat(store().get(forever)).as("no expiry").isEqualTo(bytes("v"));
        assertThat(store().claim(given, claimant("", TIMEOUT, TTL), null)).isInstanceOf(Claim.Compute.class);
    }

    @Test
    void discardShouldRemoveTheValueOnlyIfItIsStillTheSameBytes() {
        String key = key("discard");
        store().complete(key, compute(key).ticket(), completion(bytes("unreadable"), null));

        assertThat(store().discard(key, bytes("written meanwhile"))).isFalse();
        assertThat(store().get(key)).isEqualTo(bytes("unreadable"));

        assertThat(node().discard(key, bytes("unreadable"))).isTrue();
        assertThat(store().get(key)).isNull();
        assertThat(store().discard(key, bytes("unreadable"))).as("gone already").isFalse();
        assertThat(store().claim(key, claimant("", TIMEOUT, TTL), null)).as("a miss")
                .isInstanceOf(Claim.Compute.class);
    }

    @Test
    void invalidationShouldRemoveTheValueAndSetTheMissInFlightAside() {
        String key = key("invalidated");
        Claim.Compute done = compute(key);
        store().complete(key, done.ticket(), completion(bytes("old"), null));
        store().invalidate(key, "n");
        assertThat(store().get(key)).isNull();
        Claim.Compute old = compute(key);

        node().invalidate(key, "n");

        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), old.miss())).as("its waiters still wait for it")
                .isInstanceOfSatisfying(Claim.Wait.class, wait -> assertThat(wait.miss()).isEqualTo(old.miss()));
        Claim.Compute fresh = (Claim.Compute) node().claim(key, claimant("", TIMEOUT, TTL), null);
        assertThat(fresh.miss().id()).as("a new caller starts a new miss").isNotEqualTo(old.miss().id());

        assertThat(store().complete(key, old.ticket(), completion(bytes("unstored"), null))).isTrue();
        assertThat(store().get(key)).as("not stored").isNull();
        assertThat(store().invalidatedValue(key, old.miss().id())).isEqualTo(bytes("unstored"));
        assertThat(store().invalidatedValue(key, fresh.miss().id())).isNull();
        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), old.miss()))
                .usingRecursiveComparison().isEqualTo(new Claim.Done(Notice.Outcome.UNSTORED, bytes("unstored"), null, null));

        assertThat(node().complete(key, fresh.ticket(), completion(bytes("new"), null))).isTrue();
        assertThat(store().get(key)).isEqualTo(bytes("new"));
    }

    @Test
    void currentComputerOfAnInvalidatedMissShouldStillFailIt() {
        String key = key("invalidated-failed");
        Claim.Compute old = compute(key);
        store().invalidate(key, "n");

        assertThat(store().fail(key, old.ticket(), "E", "m", "n")).isTrue();

        assertThat(node().claim(key, claimant("", TIMEOUT, TTL), old.miss()))
                .usingRecursiveComparison().isEqualTo(new Claim.Done(Notice.Outcome.FAILED, null, "E", "m"));
    }

    @Test
    void everyStepShouldPublishItsNoticeWholeToEveryNodeAndNoOtherNotice() throws InterruptedException {
        RemoteComputeStore listening = node();
        List<String> heard = new CopyOnWriteArrayList<>();
        String key = key("notices");
        listening.subscribe(heard::add);
        awaitSubscribed(listening, heard, key);
        String odd = "2:n1" + "€é\u0000\u0001:" + "x".repeat(500);

        listening.invalidate(key, "idle"); // nothing computing: nothing published
        Claim.Compute first = compute(key);
        store().complete(key, first.ticket(), completion(null, TTL, odd, "unstored")); // a null result: no value
        Claim.Compute second = (Claim.Compute) store().claim(key, claimant("", TIMEOUT, TTL), null);
        store().invalidate(key, "invalidated");
        store().complete(key, second.ticket(), completion(bytes("w"), null, "stored", "unstored after all"));
        Claim.Compute third = (Claim.Compute) store().claim(key, claimant("", TIMEOUT, TTL), null);
        store().fail(key, third.ticket(), "E", "m", "failed");

        await().atMost(BOUND).until(() -> heard.size() >= 4);
        assertThat(heard).containsExactly(odd, "invalidated", "unstored after all", "failed");
        assertThat(listening.claim(key, claimant("", TIMEOUT, TTL), null)).isInstanceOf(Claim.Compute.class);
    }

    @Test
    void noticeAsLongAsTheStoreAllowsShouldGoThroughWhole() throws InterruptedException {
        RemoteComputeStore listening = node();
        List<String> heard = new CopyOnWriteArrayList<>();
        String key = key("long-notice");
        listening.subscribe(heard::add);
        awaitSubscribed(listening, heard, key);
        assertThat(store().maxNoticeBytes()).isGreaterThan(1_000);
        String longest = "é".repeat((int) Math.min(50_000, store().maxNoticeBytes()) / 2 - 1);

        Claim.Compute turn = compute(key);
        store().fail(key, turn.ticket(), "E", null, longest);

        await().atMost(BOUND).until(() -> !heard.isEmpty());
        assertThat(heard).containsExactly(longest);
    }

    @Test
    void entryShouldGiveTheValueWithItsAgeAndThenItsStaleCopyWithTheBackOff() {
        String key = key("entry");
        Claim.Compute turn = compute(key);
        store().complete(key, turn.ticket(), new Completion(bytes("v"), SHORT, true, TTL, "n", "u"));

        Entry fresh = store().entry(key);
        assertThat(fresh.value()).isEqualTo(bytes("v"));
        assertThat(fresh.stale()).isFalse();
        assertThat(fresh.backingOff()).isFalse();
        assertThat(fresh.ageMillis()).isBetween(0L, BOUND.toMillis());

        Entry stale = await().atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> node().entry(key), entry -> entry != null && entry.stale());
        assertThat(stale.value()).isEqualTo(bytes("v"));
        assertThat(store().get(key)).as("past its TTL").isNull();
        assertThat(store().backOff(key, TTL)).isTrue();
        assertThat(node().backOff(key, TTL)).as("one runs").isFalse();
        assertThat(store().entry(key).backingOff()).isTrue();

        Claim.Compute again = compute(key);
        store().complete(key, again.ticket(), new Completion(bytes("w"), TTL, true, TTL, "n", "u"));
        assertThat(store().entry(key)).as("a stored value ends the back-off")
                .satisfies(entry -> assertThat(entry.backingOff()).isFalse())
                .satisfies(entry -> assertThat(entry.value()).isEqualTo(bytes("w")));
    }

    @Test
    void invalidationShouldRemoveTheStaleCopyToo() {
        String key = key("entry-invalidated");
        store().complete(key, compute(key).ticket(), new Completion(bytes("v"), SHORT, true, TTL, "n", "u"));
        await().atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> store().entry(key), entry -> entry != null && entry.stale());

        node().invalidate(key, "n");

        assertThat(store().entry(key)).isNull();
    }

    @Test
    void refreshShouldFindAYoungValueAndComputeAnOldOne() {
        String key = key("refresh");
        store().complete(key, compute(key).ticket(), new Completion(bytes("v"), TTL, true, Duration.ZERO, "n", "u"));

        assertThat(store().claim(key, refresh(Duration.ofMinutes(5)), null)).as("written less than 5 minutes ago")
                .isInstanceOf(Claim.Hit.class);
        Claim due = await().atMost(BOUND).pollInterval(Duration.ofMillis(50))
                .until(() -> store().claim(key, refresh(Duration.ofMillis(100)), null),
                        claim -> !(claim instanceof Claim.Hit));
        assertThat(due).isInstanceOf(Claim.Compute.class);
        assertThat(store().get(key)).as("the value stays while it is recomputed").isEqualTo(bytes("v"));
    }

    @Test
    void claimOfAnInterruptedThreadShouldGiveTheSameAnswerAndKeepItsStatus() {
        String key = key("interrupted");
        RemoteComputeStore store = store(); // made (its connections too) before the interrupt
        store.get(key);
        Thread.currentThread().interrupt();
        try {
            Claim claim = store.claim(key, claimant("", TIMEOUT, TTL), null);
            assertThat(claim).isInstanceOf(Claim.Compute.class);
            assertThat(store.complete(key, ((Claim.Compute) claim).ticket(), completion(bytes("v"), null)))
                    .isTrue();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(store().get(key)).isEqualTo(bytes("v"));
    }

    /**
     * Publishes notices of misses of {@code key} (ended with a {@code null} result) until {@code listening}, which
     * waits for each, hears one: its subscription, made in the background (on a Redis Cluster: to the key's shard
     * channel, when a claim first tells it to wait), is up. Then {@code heard} is emptied, and {@code key} has no
     * value, its last miss done.
     */
    private void awaitSubscribed(RemoteComputeStore listening, List<String> heard, String key)
            throws InterruptedException {
        AtomicInteger sent = new AtomicInteger();
        await().atMost(BOUND).pollInterval(Duration.ofMillis(10)).until(() -> {
            String notice = "warm-up " + sent.incrementAndGet();
            Claim.Compute turn = compute(key);
            assertThat(listening.claim(key, claimant("", TIMEOUT, TTL), null)).isInstanceOf(Claim.Wait.class);
            store().complete(key, turn.ticket(), completion(null, null, notice, notice));
            long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
            while (System.nanoTime() < until && heard.isEmpty()) {
                Thread.sleep(5);
            }
            return !heard.isEmpty();
        });
        Thread.sleep(100); // late warm-up notices, if any
        heard.clear();
    }

    private Claim.Compute compute(String key) {
        return (Claim.Compute) store().claim(key, claimant("", TIMEOUT, TTL), null);
    }

    private Claimant claimant(String hint, Duration computeTimeout, Duration ttl) {
        int n = claims.incrementAndGet();
        return new Claimant(run + "-computer-" + n, "thread-" + n + " @ node", computeTimeout, run + "-miss-" + n,
                hint, ttl);
    }

    private Claimant refresh(Duration after) {
        int n = claims.incrementAndGet();
        return new Claimant(run + "-computer-" + n, "refresh-" + n, TIMEOUT, run + "-miss-" + n, "", TTL, after);
    }

    private static Completion completion(byte[] value, Duration ttl) {
        return completion(value, ttl, "n", "u");
    }

    private static Completion completion(byte[] value, Duration ttl, String notice, String unstored) {
        return new Completion(value, ttl, false, Duration.ZERO, notice, unstored);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static byte[] everyByte() {
        byte[] all = new byte[512];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        return all;
    }
}
