package dev.locks.contract;

import static dev.locks.contract.ComputeCacheCallers.awaitComputer;
import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.computation;
import static dev.locks.contract.ComputeCacheCallers.failure;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LocksClock;
import dev.locks.support.AsyncComputeCache;
import dev.locks.test.ManualClock;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every {@link ComputeCache} backend promises (SPEC section 4). A backend's test subclasses this and
 * implements {@link #newCache}; a distributed backend also overrides {@link #newPeer} (another node over the
 * same store) and, if its time does not follow the {@link ManualClock} it is given, {@link #elapse}.
 *
 * <p>Keys are unique to each test run, so a shared store needs no cleaning. Every test leaves no
 * computation in flight, which {@link #leavesNothingInFlight()} checks.
 */
public abstract class ComputeCacheContract {

    protected static final Duration TTL = Duration.ofSeconds(1);
    protected static final Duration COMPUTE_TIMEOUT = Duration.ofSeconds(2);
    protected static final Duration WAIT_TIME = Duration.ofMillis(500);
    protected static final ComputeOptions DEFAULTS =
            ComputeOptions.defaults().withTtl(TTL).withComputeTimeout(COMPUTE_TIMEOUT);

    private static final long PATIENCE_MILLIS = ComputeCacheCallers.PATIENCE.toMillis();

    protected final ManualClock clock = new ManualClock();
    protected final ComputeCacheCallers callers = new ComputeCacheCallers();
    protected ComputeCache cache;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /** A new, empty cache with these defaults, on this clock. */
    protected abstract ComputeCache newCache(ComputeOptions defaults, LocksClock clock);

    /**
     * Another node over the same store as {@code cache}. A backend for one JVM has no other node: it returns
     * {@code cache} itself (the default).
     */
    protected ComputeCache newPeer(ComputeCache cache, ComputeOptions defaults, LocksClock clock) {
        return cache;
    }

    /** Lets {@code duration} pass for the cache: by default, advances the manual clock it was given. */
    protected void elapse(Duration duration) {
        clock.advance(duration);
    }

    /**
     * How close to a deadline the tests look: a value must still be there this long before its TTL ends and
     * gone once it has. 1 ms for a backend whose time is the clock it was given; a backend whose expiry runs
     * on a server's own clock (Redis) needs the few milliseconds that pass between storing and looking.
     */
    protected Duration precision() {
        return Duration.ofMillis(1);
    }

    /** A key of this test run. */
    protected String key(String name) {
        return name + ":" + run;
    }

    @BeforeEach
    void createCache() {
        cache = newCache(DEFAULTS, clock);
    }

    @AfterEach
    void leavesNothingInFlight() throws InterruptedException {
        callers.close();
        assertThat(cache.computations()).isEmpty();
        assertThat(cache.inFlightCount()).isZero();
    }

    // ---- hit, miss, TTL

    @Test
    void hitShouldReturnTheStoredValueWithoutComputing() {
        String key = key("hit");
        Counter counter = new Counter();

        assertThat(cache.fetchOrCompute(key, TTL, counter)).isEqualTo("v1");
        assertThat(cache.fetchOrCompute(key, TTL, counter)).isEqualTo("v1");
        assertThat(cache.begin(key, TTL, "hint")).isEqualTo(new ComputeOutcome.Hit("v1"));
        assertThat(counter.calls()).isEqualTo(1);
    }

    @Test
    void valueShouldExpireAfterItsTtl() {
        String key = key("ttl");
        Counter counter = new Counter();
        cache.fetchOrCompute(key, TTL, counter);

        elapse(TTL.minus(precision()));
        assertThat(cache.fetchOrCompute(key, TTL, counter)).isEqualTo("v1");
        elapse(precision());
        assertThat(cache.fetchOrCompute(key, TTL, counter)).isEqualTo("v2");
    }

    @Test
    void zeroTtlShouldNeverExpire() {
        String key = key("forever");
        Counter counter = new Counter();
        cache.fetchOrCompute(key, Duration.ZERO, counter);

        elapse(Duration.ofDays(3650));

        assertThat(cache.fetchOrCompute(key, TTL, counter)).isEqualTo("v1");
    }

    @Test
    void ttlOfTheOptionsShouldApply() {
        String key = key("options-ttl");
        Counter counter = new Counter();
        cache.fetchOrCompute(key, cache.defaultOptions().withTtl(TTL.multipliedBy(3)), counter);

        elapse(TTL.multipliedBy(2));

        assertThat(cache.fetchOrCompute(key, TTL, counter)).isEqualTo("v1");
    }

    @Test
    void invalidateShouldRemoveTheValue() {
        String key = key("invalidate");
        Counter counter = new Counter();
        cache.fetchOrCompute(key, TTL, counter);

        cache.invalidate(key);

        assertThat(cache.fetchOrCompute(key, TTL, counter)).isEqualTo("v2");
    }

    @Test
    void invalidateDuringAComputationShouldWinOverItsResult() {
        String key = key("invalidate-in-flight");
        ComputeCache peer = newPeer(cache, DEFAULTS, clock);
        ComputeCacheStall<String> readsOldRow = ComputeCacheStall.returning("old");
        Future<String> computer = computing("alice", key, readsOldRow);
        Future<String> joined = waiting("bob", key, 1, () -> cache.fetchOrCompute(key, TTL, () -> "bob"));

        peer.invalidate(key); // the writer updated the row ("new"), then invalidates, on another node

        Future<String> after = callers.start("carol", () -> peer.fetchOrCompute(key, TTL, () -> "new"));
        assertThat(result(after)).as("a call that starts after invalidate gets a fresh computation").isEqualTo("new");
        readsOldRow.release();
        assertThat(result(computer)).as("the computation still answers its own caller").isEqualTo("old");
        assertThat(result(joined)).as("and the waiters that had joined it").isEqualTo("old");
        assertThat(cache.fetchOrCompute(key, TTL, () -> "newer")).isEqualTo("new");
        assertThat(peer.fetchOrCompute(key, TTL, () -> "newer")).isEqualTo("new");
    }

    @Test
    void invalidateDuringAComputationWithNoLaterCallShouldStoreNothing() {
        String key = key("invalidate-unstored");
        ComputeCache peer = newPeer(cache, DEFAULTS, clock);
        ComputeCacheStall<String> readsOldRow = ComputeCacheStall.returning("old");
        Future<String> computer = computing("alice", key, readsOldRow);

        peer.invalidate(key);
        readsOldRow.release();

        assertThat(result(computer)).isEqualTo("old");
        assertThat(cache.fetchOrCompute(key, TTL, () -> "new")).isEqualTo("new");
        assertThat(peer.fetchOrCompute(key, TTL, () -> "newer")).isEqualTo("new");
    }

    @Test
    void protocolCompletionAfterInvalidateShouldAnswerItsWaitersButNotBeStored() {
        String key = key("invalidate-protocol");
        ComputeOutcome.Compute turn = beginAsComputer(key, "hint");
        Future<ComputeOutcome> waiter = waiting("bob", key, 1, () -> cache.begin(key, TTL, "hint"));

        newPeer(cache, DEFAULTS, clock).invalidate(key);

        cache.complete(turn.ticket(), "old", null);
        assertThat(result(waiter)).isEqualTo(new ComputeOutcome.Value("old"));
        assertThat(cache.fetchOrCompute(key, TTL, () -> "new")).isEqualTo("new");
    }

    @Test
    void callsAfterAnInvalidateShouldNeverSeeAValueReadBeforeIt() {
        String key = key("invalidate-fuzz");
        AtomicInteger row = new AtomicInteger();
        AtomicInteger invalidated = new AtomicInteger();
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<Integer>> readers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            readers.add(callers.start("reader-" + t, () -> {
                gate.await();
                int stale = 0;
                for (int i = 0; i < 150; i++) {
                    int floor = invalidated.get();
                    int seen = Integer.parseInt(cache.fetchOrCompute(key, Duration.ZERO, () -> Integer.toString(row.get())));
                    stale += seen < floor ? 1 : 0;
                }
                return stale;
            }));
        }
        Future<Integer> writer = callers.start("writer", () -> {
            gate.await();
            for (int i = 0; i < 40; i++) {
                int next = row.incrementAndGet(); // the database update, then the invalidation
                cache.invalidate(key);
                invalidated.set(next);
                Thread.yield();
            }
            return 0;
        });

        gate.countDown();

        assertThat(result(writer)).isZero();
        for (Future<Integer> reader : readers) {
            assertThat(result(reader)).as("calls that returned a value read before an invalidate they followed")
                    .isZero();
        }
        assertThat(cache.fetchOrCompute(key, TTL, () -> "recomputed")).as("what is stored was read after the last one")
                .isIn(Integer.toString(row.get()), "recomputed");
    }

    // ---- recursion

    @Test
    void computationCallingItsOwnKeyShouldFailAtOnceNamingIt() {
        String key = key("recursive");

        Future<String> call = callers.start("alice",
                () -> cache.fetchOrCompute(key, TTL, () -> cache.fetchOrCompute(key, TTL, () -> "inner")));

        assertThat(failure(call)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("recursive").hasMessageContaining("'" + key + "'");
        assertThat(cache.fetchOrCompute(key, TTL, () -> "v")).as("nothing is left behind").isEqualTo("v");
    }

    @Test
    void computationCallingItsOwnKeyThroughASecondKeyShouldFailAtOnceNamingBoth() {
        String outer = key("recursive-outer");
        String inner = key("recursive-inner");

        Future<String> call = callers.start("alice", () -> cache.fetchOrCompute(outer, TTL,
                () -> cache.fetchOrCompute(inner, TTL, () -> cache.fetchOrCompute(outer, TTL, () -> "innermost"))));

        assertThat(failure(call)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("recursive")
                .hasMessageContaining("'" + outer + "'").hasMessageContaining("'" + inner + "'");
        assertThat(cache.fetchOrCompute(inner, TTL, () -> "v")).isEqualTo("v");
        assertThat(cache.fetchOrCompute(key("recursive-other"), TTL,
                () -> cache.fetchOrCompute(outer, TTL, () -> "nested, not recursive"))).isEqualTo("nested, not recursive");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {" ", "\t\n"})
    void invalidKeyShouldBeRejectedNamingPositionZero(String key) {
        assertThatThrownBy(() -> cache.fetchOrCompute(key, TTL, () -> "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0");
        assertThatThrownBy(() -> cache.fetchOrCompute(key, DEFAULTS, () -> "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0");
        assertThatThrownBy(() -> cache.begin(key, TTL, "hint"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0");
        assertThatThrownBy(() -> cache.invalidate(key))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0");
    }

    // ---- one computer per miss

    @Test
    void missShouldComputeOnceForTwoHundredCallers() {
        String key = key("stampede");
        int count = 200;
        CountDownLatch gate = new CountDownLatch(1);
        // a fresh object, so that "the same value" means the same object; serializable, so that a distributed
        // backend can store it
        ComputeCacheStall<Object> computation = ComputeCacheStall.returning(new StringBuilder("value"));
        List<Future<Object>> results = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            results.add(callers.start("caller-" + i, () -> {
                gate.await();
                return cache.fetchOrCompute(key, TTL, computation);
            }));
        }

        gate.countDown();
        computation.awaitEntered();
        awaitWaiters(cache, key, count - 1);
        computation.release();

        Object value = result(results.get(0));
        for (Future<Object> each : results) {
            assertThat(result(each)).isSameAs(value);
        }
        assertThat(computation.calls()).isEqualTo(1);
    }

    @Test
    void keysUnderContentionShouldEachComputeOnce() {
        int keys = 50;
        // values outlive the run: callers read each key once more after its first computation, and on a store
        // whose expiry follows real time (Redis, PostgreSQL) a loaded machine took the 400 reads past TTL's 1 s,
        // so the first keys expired and were rightly computed again
        Duration ttl = Duration.ofMinutes(5);
        AtomicInteger computations = new AtomicInteger();
        List<Future<List<String>>> results = new ArrayList<>();
        CountDownLatch gate = new CountDownLatch(1);
        for (int t = 0; t < 8; t++) {
            results.add(callers.start("fuzz-" + t, () -> {
                List<Integer> order = new ArrayList<>();
                for (int k = 0; k < keys; k++) {
                    order.add(k);
                }
                Collections.shuffle(order);
                gate.await();
                String[] seen = new String[keys];
                for (int k : order) {
                    seen[k] = cache.fetchOrCompute(key("fuzz-" + k), ttl, () -> "computation " + computations.incrementAndGet());
                }
                return List.of(seen);
            }));
        }

        gate.countDown();

        List<String> first = result(results.get(0));
        for (Future<List<String>> each : results) {
            assertThat(result(each)).isEqualTo(first);
        }
        assertThat(first).doesNotHaveDuplicates();
        assertThat(computations).hasValue(keys);
    }

    @Test
    void missesOnSeveralNodesShouldComputeOnce() {
        String key = key("nodes");
        ComputeCache peer = newPeer(cache, DEFAULTS, clock);
        int count = 16;
        CountDownLatch calling = new CountDownLatch(count);
        AtomicInteger computations = new AtomicInteger();
        Supplier<String> computation = () -> {
            awaitQuietly(calling);
            return "computation " + computations.incrementAndGet();
        };
        // a stall is not what this test is about (a loaded machine must not hand the miss over): a long compute
        // timeout; its short TTL stays (a waiter that reads after the value expired still gets it)
        ComputeOptions patient = DEFAULTS.withComputeTimeout(ComputeCacheCallers.PATIENCE);
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ComputeCache node = i % 2 == 0 ? cache : peer;
            results.add(callers.start("node-caller-" + i, () -> {
                calling.countDown();
                return node.fetchOrCompute(key, patient, computation);
            }));
        }

        for (Future<String> each : results) {
            assertThat(result(each)).isEqualTo("computation 1");
        }
        assertThat(computations).hasValue(1);
        assertThat(peer.computations()).isEmpty();
    }

    @Test
    void valueComputedOnOneNodeShouldBeAHitOnAnother() {
        String key = key("shared");
        ComputeCache peer = newPeer(cache, DEFAULTS, clock);
        Counter counter = new Counter();
        cache.fetchOrCompute(key, TTL, counter);

        assertThat(peer.fetchOrCompute(key, TTL, counter)).isEqualTo("v1");
        assertThat(counter.calls()).isEqualTo(1);
    }

    // ---- failure

    @Test
    void checkedFailureShouldReachEveryWaiterAndStoreNothing() {
        String key = key("checked-failure");
        IOException boom = new IOException("boom");
        ComputeCacheStall<String> computation = ComputeCacheStall.throwing(boom);
        Counter counter = new Counter();
        Future<String> computer = computing("alice", key, computation);
        List<Future<String>> waiters = new ArrayList<>();
        for (String name : List.of("bob", "carol", "dave")) {
            waiters.add(waiting(name, key, waiters.size() + 1, () -> cache.fetchOrCompute(key, TTL, counter)));
        }

        computation.release();

        assertThat(failure(computer)).isSameAs(boom);
        for (Future<String> waiter : waiters) {
            assertThat(failure(waiter)).isSameAs(boom);
        }
        assertThat(counter.calls()).isZero();
        assertThat(cache.fetchOrCompute(key, TTL, counter)).isEqualTo("v1");
    }

    @Test
    void errorThrownByTheComputerShouldNotLeaveWaitersHanging() {
        String key = key("error");
        AssertionError error = new AssertionError("computer broke");
        ComputeCacheStall<String> computation = ComputeCacheStall.throwing(error);
        Future<String> computer = computing("alice", key, computation);
        Future<String> waiter = waiting("bob", key, 1, () -> cache.fetchOrCompute(key, TTL, () -> "bob"));

        computation.release();

        assertThat(failure(computer)).isSameAs(error);
        assertThat(failure(waiter)).isSameAs(error);
    }

    @Test
    void failShouldReachEveryWaiterAndStoreNothing() {
        String key = key("protocol-failure");
        ComputeOutcome.Compute turn = beginAsComputer(key, "hint");
        Future<ComputeOutcome> waiter = waiting("bob", key, 1, () -> cache.begin(key, TTL, "hint"));
        IllegalStateException error = new IllegalStateException("boom");

        assertThat(cache.fail(turn.ticket(), error)).isTrue();

        assertThat(result(waiter)).isEqualTo(new ComputeOutcome.Failed(error));
        assertThat(cache.complete(beginAsComputer(key, "hint").ticket(), "v", null)).isTrue();
    }

    @Test
    void nullResultShouldReachWaitersButNotBeStored() {
        String key = key("null");
        ComputeCacheStall<String> computation = ComputeCacheStall.returning(null);
        Future<String> computer = computing("alice", key, computation);
        Future<String> waiter = waiting("bob", key, 1, () -> cache.fetchOrCompute(key, TTL, () -> "bob"));

        computation.release();

        assertThat(result(computer)).isNull();
        assertThat(result(waiter)).isNull();
        assertThat(cache.fetchOrCompute(key, TTL, () -> "v")).isEqualTo("v");
    }

    @Test
    void nullCompletionShouldReachWaitersButNotBeStored() {
        String key = key("null-protocol");
        ComputeOutcome.Compute turn = beginAsComputer(key, "hint");
        Future<ComputeOutcome> waiter = waiting("bob", key, 1, () -> cache.begin(key, TTL, "hint"));

        assertThat(cache.complete(turn.ticket(), null, null)).isTrue();

        assertThat(result(waiter)).isEqualTo(new ComputeOutcome.Value(null));
        assertThat(cache.complete(beginAsComputer(key, "hint").ticket(), "v", null)).isTrue();
    }

    // ---- compute timeout

    @Test
    void stalledComputerShouldBeReplacedByTheOldestWaiterAndTheFirstResultWins() {
        String key = key("stalled");
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        ComputeCacheStall<String> bob = ComputeCacheStall.returning("bob");
        ComputeCacheStall<String> carol = ComputeCacheStall.returning("carol");
        Future<String> first = computing("alice", key, alice);
        Future<String> oldest = waiting("bob", key, 1, () -> cache.fetchOrCompute(key, TTL, bob));
        Future<String> younger = waiting("carol", key, 2, () -> cache.fetchOrCompute(key, TTL, carol));

        elapse(COMPUTE_TIMEOUT);

        bob.awaitEntered();
        awaitComputer(cache, key, "bob");
        assertThat(computation(cache, key)).map(Computation::waiters).hasValue(1);
        alice.release();
        assertThat(result(first)).isEqualTo("alice");
        assertThat(result(younger)).isEqualTo("alice");
        bob.release();
        assertThat(result(oldest)).as("a dropped computer's caller still gets its own value").isEqualTo("bob");
        assertThat(carol.calls()).isZero();
        assertThat(cache.fetchOrCompute(key, TTL, () -> "other")).isEqualTo("alice");
    }

    @Test
    void promotedComputerFinishingFirstShouldWin() {
        String key = key("promoted-wins");
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        Future<String> first = computing("alice", key, alice);
        ComputeCacheStall<String> bob = ComputeCacheStall.returning("bob");
        Future<String> promoted = waiting("bob", key, 1, () -> cache.fetchOrCompute(key, TTL, bob));
        elapse(COMPUTE_TIMEOUT);
        bob.awaitEntered();

        bob.release();
        assertThat(result(promoted)).isEqualTo("bob");
        alice.release();

        assertThat(result(first)).as("a dropped computer's caller still gets its own value").isEqualTo("alice");
        assertThat(cache.fetchOrCompute(key, TTL, () -> "other")).isEqualTo("bob");
    }

    @Test
    void beginWithOptionsShouldTimeTheComputerWithTheirComputeTimeout() {
        String key = key("begin-options");
        ComputeOptions quick = cache.defaultOptions().withComputeTimeout(COMPUTE_TIMEOUT.dividedBy(4));
        assertThat(cache.begin(key, quick, "first hint")).isInstanceOf(ComputeOutcome.Compute.class);
        Future<ComputeOutcome> waiter = waiting("bob", key, 1, () -> cache.begin(key, quick, "second hint"));

        elapse(quick.computeTimeout());

        ComputeOutcome.Compute promoted = (ComputeOutcome.Compute) result(waiter);
        assertThat(promoted.hint()).isEqualTo("first hint");
        assertThat(cache.complete(promoted.ticket(), "bob", null)).isTrue();
        assertThat(cache.begin(key, quick, null)).isEqualTo(new ComputeOutcome.Hit("bob"));
    }

    @Test
    void beginWithAWaitTimeShouldEndOnlyThatWait() {
        String key = key("begin-wait-time");
        ComputeOutcome.Compute turn = beginAsComputer(key, "hint");
        ComputeOptions impatient = cache.defaultOptions().withWaitTime(WAIT_TIME);
        Future<ComputeOutcome> bob = waiting("bob", key, 1, () -> cache.begin(key, impatient, "hint"));

        elapse(WAIT_TIME);

        assertThat(failure(bob)).isInstanceOfSatisfying(ComputeTimeoutException.class,
                timeout -> assertThat(timeout.key()).isEqualTo(key));
        assertThat(cache.complete(turn.ticket(), "alice", null)).isTrue();
        assertThat(cache.begin(key, impatient, null)).isEqualTo(new ComputeOutcome.Hit("alice"));
    }

    @Test
    void promotedWaiterShouldReceiveTheFirstHintAndOnlyTheFirstCompletionCounts() {
        String key = key("promotion-protocol");
        ComputeOutcome.Compute first = beginAsComputer(key, "first hint");
        Future<ComputeOutcome> waiter = waiting("bob", key, 1, () -> cache.begin(key, TTL, "second hint"));

        elapse(COMPUTE_TIMEOUT);

        ComputeOutcome.Compute promoted = (ComputeOutcome.Compute) result(waiter);
        assertThat(promoted.hint()).isEqualTo("first hint");
        assertThat(promoted.ticket().key()).isEqualTo(key);
        assertThat(promoted.ticket()).isNotEqualTo(first.ticket());
        assertThat(cache.complete(promoted.ticket(), "bob", null)).isTrue();
        assertThat(cache.complete(first.ticket(), "alice", null)).isFalse();
        assertThat(cache.begin(key, TTL, null)).isEqualTo(new ComputeOutcome.Hit("bob"));
    }

    @Test
    void demotedComputerShouldNotFailTheMissButMayStillCompleteIt() {
        String key = key("demoted");
        ComputeOutcome.Compute first = beginAsComputer(key, "hint");
        Future<ComputeOutcome> second = waiting("bob", key, 1, () -> cache.begin(key, TTL, "hint"));
        elapse(COMPUTE_TIMEOUT);
        ComputeOutcome.Compute promoted = (ComputeOutcome.Compute) result(second);
        Future<ComputeOutcome> third = waiting("carol", key, 1, () -> cache.begin(key, TTL, "hint"));

        assertThat(cache.fail(first.ticket(), new IllegalStateException("late"))).isFalse();
        assertThat(cache.complete(first.ticket(), "alice", null)).isTrue();

        assertThat(result(third)).isEqualTo(new ComputeOutcome.Value("alice"));
        assertThat(cache.complete(promoted.ticket(), "bob", null)).isFalse();
        assertThat(cache.fail(promoted.ticket(), new IllegalStateException("late"))).isFalse();
        assertThat(cache.begin(key, TTL, null)).isEqualTo(new ComputeOutcome.Hit("alice"));
    }

    @Test
    void overdueComputerWithoutWaitersShouldEndItsMiss() {
        String key = key("abandoned");
        ComputeOutcome.Compute first = beginAsComputer(key, "first hint");

        elapse(COMPUTE_TIMEOUT);

        assertThat(computation(cache, key)).isEmpty();
        ComputeOutcome.Compute next = beginAsComputer(key, "next hint");
        assertThat(next.hint()).as("a new miss, not a promotion").isEqualTo("next hint");
        assertThat(cache.complete(first.ticket(), "late", null)).isFalse();
        assertThat(cache.complete(next.ticket(), "fresh", null)).isTrue();
        assertThat(cache.begin(key, TTL, null)).isEqualTo(new ComputeOutcome.Hit("fresh"));
    }

    @Test
    void overdueComputerWithoutWaitersShouldLetTheNextCallerCompute() {
        String key = key("abandoned-everyday");
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        Future<String> first = computing("alice", key, alice);

        elapse(COMPUTE_TIMEOUT);

        assertThat(cache.fetchOrCompute(key, TTL, () -> "bob")).isEqualTo("bob");
        alice.release();
        assertThat(result(first)).isEqualTo("alice");
        assertThat(cache.fetchOrCompute(key, TTL, () -> "other")).isEqualTo("bob");
    }

    // ---- a waiter's own wait time

    @Test
    void waitTimeShouldEndOnlyThatWaitersWait() {
        String key = key("wait-time");
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        Future<String> computer = computing("alice", key, alice);
        ComputeOptions impatient = cache.defaultOptions().withWaitTime(WAIT_TIME);
        Future<String> bob = waiting("bob", key, 1, () -> cache.fetchOrCompute(key, impatient, () -> "bob"));
        Future<String> carol = waiting("carol", key, 2, () -> cache.fetchOrCompute(key, TTL, () -> "carol"));

        elapse(WAIT_TIME);

        assertThat(failure(bob)).isInstanceOfSatisfying(ComputeTimeoutException.class,
                timeout -> assertThat(timeout.key()).isEqualTo(key));
        awaitWaiters(cache, key, 1);
        assertThat(computation(cache, key)).map(Computation::computer).hasValueSatisfying(
                name -> assertThat(name).contains("alice"));
        alice.release();
        assertThat(result(computer)).isEqualTo("alice");
        assertThat(result(carol)).isEqualTo("alice");
    }

    @Test
    void zeroWaitTimeShouldNotWait() {
        String key = key("no-wait");
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        Future<String> computer = computing("alice", key, alice);

        assertThatThrownBy(() -> cache.fetchOrCompute(key, cache.defaultOptions().withWaitTime(Duration.ZERO), () -> "bob"))
                .isInstanceOf(ComputeTimeoutException.class);

        alice.release();
        assertThat(result(computer)).isEqualTo("alice");
    }

    // ---- the protocol form

    @Test
    void beginShouldReturnComputeThenValueThenHit() {
        String key = key("protocol");
        ComputeOutcome outcome = cache.begin(key, TTL, null);
        assertThat(outcome).isInstanceOfSatisfying(ComputeOutcome.Compute.class, turn -> {
            assertThat(turn.hint()).as("a null hint means \"\"").isEmpty();
            assertThat(turn.ticket().key()).isEqualTo(key);
        });
        Future<ComputeOutcome> waiter = waiting("bob", key, 1, () -> cache.begin(key, TTL, "bob's hint"));

        assertThat(cache.complete(((ComputeOutcome.Compute) outcome).ticket(), "v", null)).isTrue();

        assertThat(result(waiter)).isEqualTo(new ComputeOutcome.Value("v"));
        assertThat(cache.begin(key, TTL, null)).isEqualTo(new ComputeOutcome.Hit("v"));
    }

    @Test
    void ticketOfAMissThatIsOverShouldBeRefused() {
        String key = key("stale-ticket");
        ComputeTicket ticket = beginAsComputer(key, "hint").ticket();
        assertThat(cache.complete(ticket, "v", null)).isTrue();

        assertThat(cache.complete(ticket, "again", null)).isFalse();
        assertThat(cache.fail(ticket, new IllegalStateException())).isFalse();
        cache.invalidate(key);
        ComputeTicket next = beginAsComputer(key, "hint").ticket();
        assertThat(cache.complete(ticket, "old miss", null)).isFalse();
        assertThat(cache.complete(new ComputeTicket(key, "forged"), "forged", null)).isFalse();
        assertThat(cache.complete(new ComputeTicket(key("unknown"), next.id()), "elsewhere", null)).isFalse();
        assertThat(cache.complete(next, "v2", null)).isTrue();
        assertThat(cache.begin(key, TTL, null)).isEqualTo(new ComputeOutcome.Hit("v2"));
    }

    @Test
    void completeWithoutTtlShouldUseTheTtlOfBegin() {
        String key = key("begin-ttl");
        String forever = key("explicit-ttl");
        ComputeTicket ticket = beginAsComputer(key, "hint").ticket();
        ComputeTicket explicit = beginAsComputer(forever, "hint").ticket();
        cache.complete(ticket, "v", null);
        cache.complete(explicit, "v", Duration.ZERO);

        elapse(TTL.minus(precision()));
        assertThat(cache.begin(key, TTL, null)).isEqualTo(new ComputeOutcome.Hit("v"));
        elapse(precision());

        cache.complete(beginAsComputer(key, "expired").ticket(), "v2", null);
        assertThat(cache.begin(forever, TTL, null)).isEqualTo(new ComputeOutcome.Hit("v"));
    }

    // ---- the protocol form without a thread (AsyncComputeCache)

    @Test
    void beginAsyncShouldReturnAHitAndTheTurnWithoutThrowing() throws Exception {
        String key = key("async-protocol");
        ComputeOutcome outcome = asyncBegin(key).get(PATIENCE_MILLIS, TimeUnit.MILLISECONDS);
        assertThat(outcome).isInstanceOfSatisfying(ComputeOutcome.Compute.class,
                turn -> assertThat(turn.ticket().key()).isEqualTo(key));
        assertThat(cache.complete(((ComputeOutcome.Compute) outcome).ticket(), "v", null)).isTrue();

        assertThat(result(asyncBegin(key))).isEqualTo(new ComputeOutcome.Hit("v"));
        assertThat(failure(async().beginAsync(" ", DEFAULTS, "")))
                .as("a bad key fails the future").isInstanceOf(IllegalArgumentException.class);
        assertThat(failure(async().beginAsync(key, null, ""))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void manyAsyncWaitersShouldHoldNoThreadAndAllReceiveTheValue() {
        String key = key("async-crowd");
        int count = 2_000;
        ComputeOutcome.Compute turn = (ComputeOutcome.Compute) result(asyncBegin(key));
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<CompletableFuture<ComputeOutcome>> waiters = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waiters.add(asyncBegin(key));
        }
        awaitWaiters(cache, key, count);

        assertThat(waiters).noneMatch(CompletableFuture::isDone);
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore)
                .as("threads started for %s waiters", count).isLessThan(50);
        assertThat(cache.complete(turn.ticket(), "v", null)).isTrue();
        for (CompletableFuture<ComputeOutcome> waiter : waiters) {
            assertThat(result(waiter)).isEqualTo(new ComputeOutcome.Value("v"));
        }
    }

    @Test
    void asyncWaitersShouldReceiveTheComputersFailureOnOtherThreads() throws Exception {
        String key = key("async-failure");
        ComputeOutcome.Compute turn = (ComputeOutcome.Compute) result(asyncBegin(key));
        CompletableFuture<ComputeOutcome> waiter = asyncBegin(key);
        CompletableFuture<Thread> stage = waiter.handle((outcome, error) -> Thread.currentThread());
        awaitWaiters(cache, key, 1);
        IllegalStateException error = new IllegalStateException("boom");

        Thread settler = new Thread(() -> cache.fail(turn.ticket(), error), "settler");
        settler.start();
        settler.join(PATIENCE_MILLIS);

        assertThat(result(waiter)).isEqualTo(new ComputeOutcome.Failed(error));
        assertThat(result(stage)).as("a dependent stage runs on the cache's threads").isNotSameAs(settler);
    }

    @Test
    void asyncWaitTimeShouldEndOnlyThatWait() {
        String key = key("async-wait-time");
        ComputeOutcome.Compute turn = (ComputeOutcome.Compute) result(asyncBegin(key));
        CompletableFuture<ComputeOutcome> impatient = async().beginAsync(key,
                cache.defaultOptions().withTtl(TTL).withWaitTime(WAIT_TIME), "");
        awaitWaiters(cache, key, 1);
        CompletableFuture<ComputeOutcome> patient = asyncBegin(key);
        awaitWaiters(cache, key, 2);

        elapse(WAIT_TIME);

        assertThat(failure(impatient)).isInstanceOfSatisfying(ComputeTimeoutException.class,
                timeout -> assertThat(timeout.key()).isEqualTo(key));
        awaitWaiters(cache, key, 1);
        assertThat(cache.complete(turn.ticket(), "v", null)).isTrue();
        assertThat(result(patient)).isEqualTo(new ComputeOutcome.Value("v"));
    }

    @Test
    void stalledComputerShouldHandTheTurnToTheOldestAsyncWaiter() {
        String key = key("async-stall");
        ComputeOutcome.Compute first = (ComputeOutcome.Compute) result(asyncBegin(key));
        CompletableFuture<ComputeOutcome> oldest = asyncBegin(key);
        awaitWaiters(cache, key, 1);
        CompletableFuture<ComputeOutcome> next = asyncBegin(key);
        awaitWaiters(cache, key, 2);

        elapse(COMPUTE_TIMEOUT);

        ComputeOutcome promoted = result(oldest);
        assertThat(promoted).isInstanceOf(ComputeOutcome.Compute.class);
        assertThat(next).isNotDone();
        assertThat(cache.complete(((ComputeOutcome.Compute) promoted).ticket(), "v", null)).isTrue();
        assertThat(result(next)).isEqualTo(new ComputeOutcome.Value("v"));
        assertThat(cache.complete(first.ticket(), "late", null)).isFalse();
    }

    @Test
    void cancelledAsyncWaiterShouldLeaveNothingBehindNorTakeTheTurn() {
        String key = key("async-cancel");
        ComputeOutcome.Compute first = (ComputeOutcome.Compute) result(asyncBegin(key));
        CompletableFuture<ComputeOutcome> gone = asyncBegin(key);
        awaitWaiters(cache, key, 1);
        CompletableFuture<ComputeOutcome> stays = asyncBegin(key);
        awaitWaiters(cache, key, 2);

        assertThat(gone.cancel(false)).isTrue();
        awaitWaiters(cache, key, 1);
        elapse(COMPUTE_TIMEOUT);

        ComputeOutcome promoted = result(stays);
        assertThat(promoted).as("the turn goes to the waiter that stayed").isInstanceOf(ComputeOutcome.Compute.class);
        assertThat(cache.complete(((ComputeOutcome.Compute) promoted).ticket(), "v", null)).isTrue();
        assertThat(cache.complete(first.ticket(), "late", null)).isFalse();
    }

    @Test
    void closingTheCacheShouldFailPendingAsyncCalls() throws Exception {
        ComputeCache own = newCache(DEFAULTS, clock);
        String key = key("async-closed");
        assertThat(result(ComputeCacheCallers.async(own).beginAsync(key, DEFAULTS, "")))
                .isInstanceOf(ComputeOutcome.Compute.class);
        CompletableFuture<ComputeOutcome> waiter = ComputeCacheCallers.async(own).beginAsync(key, DEFAULTS, "");
        awaitWaiters(own, key, 1);

        ((AutoCloseable) own).close();

        assertThat(failure(waiter)).isInstanceOf(IllegalStateException.class);
        assertThat(failure(ComputeCacheCallers.async(own).beginAsync(key, DEFAULTS, "")))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void fetchOrComputeAsyncShouldComputeOnceForAHundredCallersAndStoreTheValue() {
        String key = key("async-fetch");
        CompletableFuture<String> computation = new CompletableFuture<>();
        AtomicInteger calls = new AtomicInteger();
        Supplier<CompletableFuture<String>> compute = () -> {
            calls.incrementAndGet();
            return computation;
        };
        ComputeOptions options = cache.defaultOptions().withTtl(TTL);
        CompletableFuture<String> computer = async().fetchOrComputeAsync(key, options, compute);
        await().atMost(ComputeCacheCallers.PATIENCE).until(() -> calls.get() == 1);
        List<CompletableFuture<String>> waiters = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            waiters.add(async().fetchOrComputeAsync(key, options, compute));
        }
        awaitWaiters(cache, key, 100);

        Thread completer = new Thread(() -> computation.complete("v"), "completer");
        completer.start();

        assertThat(result(computer)).isEqualTo("v");
        for (CompletableFuture<String> waiter : waiters) {
            assertThat(result(waiter)).isEqualTo("v");
        }
        assertThat(calls).hasValue(1);
        assertThat(cache.fetchOrCompute(key, TTL, () -> "other")).as("stored").isEqualTo("v");
        assertThat(failure(async().fetchOrComputeAsync(key, options, null))).isInstanceOf(IllegalArgumentException.class);
        assertThat(failure(async().fetchOrComputeAsync(key, null, compute))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fetchOrComputeAsyncFailureShouldReachEveryCallerAndStoreNothing() {
        String key = key("async-fetch-failure");
        CompletableFuture<String> computation = new CompletableFuture<>();
        ComputeOptions options = cache.defaultOptions().withTtl(TTL);
        CompletableFuture<String> computer = async().fetchOrComputeAsync(key, options, () -> computation);
        awaitComputer(cache, key, "");
        CompletableFuture<String> waiter = async().fetchOrComputeAsync(key, options, () -> computation);
        awaitWaiters(cache, key, 1);
        IllegalStateException error = new IllegalStateException("upstream down");

        computation.completeExceptionally(error);

        assertThat(failure(computer)).isSameAs(error);
        assertThat(failure(waiter)).isSameAs(error);
        assertThat(cache.fetchOrCompute(key, TTL, () -> "next")).as("nothing stored").isEqualTo("next");
    }

    /** The cache as {@link AsyncComputeCache}, which every cache built on the core's base class is. */
    protected AsyncComputeCache async() {
        return ComputeCacheCallers.async(cache);
    }

    /** {@code beginAsync} of {@code key} with the defaults. */
    protected CompletableFuture<ComputeOutcome> asyncBegin(String key) {
        return async().beginAsync(key, cache.defaultOptions().withTtl(TTL), "");
    }

    // ---- operations

    @Test
    void computationsShouldDescribeTheMissesInFlight() {
        String key = key("snapshot");
        Instant began = clock.instant();
        ComputeOutcome.Compute first = beginAsComputer(key, "hint");
        elapse(COMPUTE_TIMEOUT.dividedBy(2));
        Future<ComputeOutcome> waiter = waiting("bob", key, 1, () -> cache.begin(key, TTL, "hint"));

        assertThat(computation(cache, key)).hasValueSatisfying(computation -> {
            assertThat(computation.computer()).contains(Thread.currentThread().getName());
            assertThat(computation.waiters()).isEqualTo(1);
            assertThat(computation.startedAt()).isEqualTo(began);
        });
        assertThat(cache.inFlightCount()).isEqualTo(1);

        elapse(COMPUTE_TIMEOUT.dividedBy(2));
        ComputeOutcome.Compute promoted = (ComputeOutcome.Compute) result(waiter);
        assertThat(computation(cache, key)).hasValueSatisfying(computation -> {
            assertThat(computation.computer()).contains("bob");
            assertThat(computation.waiters()).isZero();
            assertThat(computation.startedAt()).isEqualTo(clock.instant());
        });

        assertThat(cache.complete(promoted.ticket(), "v", null)).isTrue();
        assertThat(cache.complete(first.ticket(), "late", null)).isFalse();
        assertThat(cache.computations()).isEmpty();
    }

    /** Begins a miss of {@code key} in this thread, which must become its computer. */
    protected ComputeOutcome.Compute beginAsComputer(String key, String hint) {
        ComputeOutcome outcome = cache.begin(key, TTL, hint);
        assertThat(outcome).isInstanceOf(ComputeOutcome.Compute.class);
        return (ComputeOutcome.Compute) outcome;
    }

    /** Starts a caller named {@code name} that computes {@code key} with {@code stall}, once it is stalled there. */
    protected Future<String> computing(String name, String key, ComputeCacheStall<String> stall) {
        Future<String> computer = callers.start(name, () -> cache.fetchOrCompute(key, TTL, stall));
        stall.awaitEntered();
        return computer;
    }

    /** Starts a caller named {@code name}, once it is the {@code nth} waiter for {@code key}. */
    protected <T> Future<T> waiting(String name, String key, int nth, Callable<T> call) {
        Future<T> waiter = callers.start(name, call);
        awaitWaiters(cache, key, nth);
        return waiter;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(ComputeCacheCallers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A computation that returns "v1", "v2", ... and counts its calls. */
    protected static final class Counter implements Supplier<String> {

        private final AtomicInteger calls = new AtomicInteger();

        @Override
        public String get() {
            return "v" + calls.incrementAndGet();
        }

        public int calls() {
            return calls.get();
        }
    }
}
