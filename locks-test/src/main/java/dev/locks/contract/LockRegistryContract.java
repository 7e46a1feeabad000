package dev.locks.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link LockRegistry} does, whatever its backend: SPEC sections 2 and 3, the seed's own test
 * cases (Nebulex.Locks; a holder that must block us is another thread, since our locks are re-entrant),
 * and concurrency invariants. A backend subclasses this and provides {@link #newRegistry}.
 */
public abstract class LockRegistryContract {

    /** The seed's defaults, as {@link AcquireOptions#defaults()}. */
    protected static final AcquireOptions DEFAULTS = AcquireOptions.defaults();

    protected LockRegistry registry;
    protected Threads threads;
    private final List<LockRegistry> created = new ArrayList<>();

    /** A new, empty registry of the backend under test with these default options. */
    protected abstract LockRegistry newRegistry(AcquireOptions defaults);

    /**
     * How many acquisitions each of the 8 threads of the mutual-exclusion fuzz makes: 10,000 in memory; a
     * backend with a network round trip per acquire may make fewer, to keep its suite quick.
     */
    protected int mutualExclusionRounds() {
        return 10_000;
    }

    /**
     * How many acquisitions each of the two threads of {@link #oppositeOrdersShouldNeverDeadlock} makes: 2,000 by
     * default; a backend whose multi-key acquire costs several round trips (a cluster: one per slot) may make
     * fewer, so that the test's bound measures progress rather than round-trip time.
     */
    protected int oppositeOrderRounds() {
        return 2_000;
    }

    /** Closes a registry made by {@link #newRegistry}. */
    protected void closeRegistry(LockRegistry registry) throws Exception {
        if (registry instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    protected LockRegistry registry(AcquireOptions defaults) {
        LockRegistry made = newRegistry(defaults);
        created.add(made);
        return made;
    }

    @BeforeEach
    void setUpContract() {
        threads = new Threads();
        registry = registry(DEFAULTS);
    }

    @AfterEach
    void tearDownContract() throws Exception {
        threads.close();
        for (LockRegistry made : created) {
            closeRegistry(made);
        }
    }

    private static List<String> keys(String... keys) {
        return Arrays.asList(keys);
    }

    private List<String> heldKeys() {
        return registry.heldLocks().stream().map(HeldLock::key).toList();
    }

    /** Whether the lock on {@code key} turned stale: a store with server-side expiry simply drops it. */
    private boolean staleOrGone(String key) {
        return registry.heldLock(key).map(HeldLock::stale).orElse(true);
    }

    /** Holds {@code keys} on another thread until the returned latch is counted down. */
    private CountDownLatch holdElsewhere(List<String> keys) throws Exception {
        CountDownLatch taken = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        threads.start(() -> {
            try (Lease lease = registry.acquire(keys)) {
                taken.countDown();
                release.await();
            }
            return null;
        });
        assertThat(taken.await(Threads.BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        return release;
    }

    // ---- acquisition ------------------------------------------------------------------------------

    @Test
    void acquireShouldHoldEveryKeyUntilClosed() throws Exception {
        Lease lease = registry.acquire(keys("b", "a"));

        assertThat(lease.isHeld()).isTrue();
        assertThat(heldKeys()).containsExactly("a", "b");
        assertThat(threads.run(() -> registry.tryAcquire(keys("b")))).isEmpty();

        lease.close();

        assertThat(lease.isHeld()).isFalse();
        assertThat(heldKeys()).isEmpty();
        Optional<Lease> other = threads.run(() -> registry.tryAcquire(keys("b")));
        assertThat(other).isPresent();
        other.get().close();
    }

    @Test
    void keysShouldComeSortedWithoutDuplicates() {
        try (Lease lease = registry.acquire(keys("z", "a", "m", "a"))) {
            assertThat(lease.keys()).containsExactly("a", "m", "z");
            assertThat(heldKeys()).containsExactly("a", "m", "z");
        }
    }

    @Test
    void emptyKeysShouldTakeTheGlobalLockWhichConflictsOnlyWithItself() throws Exception {
        try (Lease global = registry.acquire(List.of())) {
            assertThat(global.keys()).containsExactly(LockRegistry.GLOBAL_LOCK_KEY);
            assertThat(heldKeys()).containsExactly("__global_lock__");
            assertThat(threads.run(() -> registry.tryAcquire(List.of()))).isEmpty();
            Optional<Lease> ordinary = threads.run(() -> registry.tryAcquire(keys("x")));
            assertThat(ordinary).isPresent();
            ordinary.get().close();
        }
    }

    @Test
    void invalidKeysShouldBeRejectedNamingTheirPositionWithNothingLocked() {
        assertThatThrownBy(() -> registry.acquire(keys("a", null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 1");
        assertThatThrownBy(() -> registry.acquire(keys("", "b")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0");
        assertThatThrownBy(() -> registry.tryAcquire(keys("a", "b", "  ")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 2");
        assertThat(heldKeys()).isEmpty();
    }

    @Test
    void acquisitionShouldBeAllOrNothing() throws Exception {
        CountDownLatch release = holdElsewhere(keys("key1"));

        assertThatThrownBy(() -> registry.acquire(keys("key1", "key2", "key3"),
                DEFAULTS.withRetries(1).withRetryInterval(Duration.ofMillis(10))))
                .isInstanceOf(LockTimeoutException.class);

        assertThat(heldKeys()).containsExactly("key1");
        release.countDown();
    }

    @Test
    void zeroRetriesShouldTryOnceAndNotWait() throws Exception {
        CountDownLatch release = holdElsewhere(keys("k"));

        assertThatThrownBy(() -> registry.acquire(keys("k"), DEFAULTS.withRetries(0)
                .withRetryInterval(Duration.ofHours(1))))
                .isInstanceOfSatisfying(LockTimeoutException.class, e -> {
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.elapsed()).isLessThan(Duration.ofMinutes(59));
                });
        release.countDown();
    }

    @Test
    void retriesShouldMakeOneAttemptMoreThanTheirNumber() throws Exception {
        CountDownLatch release = holdElsewhere(keys("k"));

        assertThatThrownBy(() -> registry.acquire(keys("k"), DEFAULTS.withRetries(2)))
                .isInstanceOfSatisfying(LockTimeoutException.class, e -> assertThat(e.attempts()).isEqualTo(3));
        release.countDown();
    }

    @Test
    void timeoutShouldNameKeysAttemptsTimeAndTheOptionToRaise() throws Exception {
        CountDownLatch release = holdElsewhere(keys("account:1"));

        assertThatThrownBy(() -> registry.acquire(keys("account:2", "account:1"), DEFAULTS.withRetries(1)))
                .isInstanceOfSatisfying(LockTimeoutException.class, e -> {
                    assertThat(e.keys()).containsExactly("account:1", "account:2");
                    assertThat(e.attempts()).isEqualTo(2);
                    assertThat(e.getMessage())
                            .contains("[account:1, account:2]", "2 attempts", " ms", "retries", "held by");
                });
        assertThatThrownBy(() -> registry.acquire(keys("account:1"),
                DEFAULTS.withInfiniteRetries().withWaitTime(Duration.ofMillis(50))))
                .isInstanceOf(LockTimeoutException.class).hasMessageContaining("wait time");
        release.countDown();
    }

    @Test
    void retryShouldSucceedOnceTheHolderReleases() throws Exception {
        CountDownLatch release = holdElsewhere(keys("retry_key"));
        // the seed waited 3 x 50 ms; 3 x 1 s keeps a loaded machine from running out of retries before the
        // release, which wakes the waiter anyway
        Future<Lease> waiting = threads.start(() -> registry.acquire(keys("retry_key"),
                DEFAULTS.withRetries(3).withRetryInterval(Duration.ofSeconds(1))));

        Thread.sleep(100);
        release.countDown();

        Threads.get(waiting).close();
    }

    @Test
    void infiniteRetriesShouldWaitUntilTheHolderReleases() throws Exception {
        CountDownLatch release = holdElsewhere(keys("infinite_key"));
        Future<Lease> waiting = threads.start(() -> registry.acquire(keys("infinite_key"),
                DEFAULTS.withInfiniteRetries().withRetryInterval(Duration.ofMillis(20))));

        Thread.sleep(100);
        assertThat(waiting).isNotDone();
        release.countDown();

        Threads.get(waiting).close();
    }

    @Test
    void waiterShouldBeWokenByTheReleaseNotByItsRetryInterval() throws Exception {
        CountDownLatch release = holdElsewhere(keys("k"));
        Future<Long> waiting = threads.start(() -> {
            long start = System.nanoTime();
            try (Lease lease = registry.acquire(keys("k"),
                    // 3 retries: on a distributed backend a late notice of an earlier release may wake it once
                    DEFAULTS.withRetries(3).withRetryInterval(Duration.ofMinutes(5)))) {
                return System.nanoTime() - start;
            }
        });

        Thread.sleep(50);
        release.countDown();

        // Without the wake-up the waiter would sleep at least the 5-minute interval (and Threads.BOUND fails first).
        assertThat(Duration.ofNanos(Threads.get(waiting))).isLessThan(Duration.ofMinutes(1));
    }

    @Test
    void waitTimeShouldEndTheWaitBeforeInfiniteRetries() throws Exception {
        CountDownLatch release = holdElsewhere(keys("k"));

        assertThatThrownBy(() -> registry.acquire(keys("k"),
                DEFAULTS.withInfiniteRetries().withWaitTime(Duration.ofMillis(100))))
                .isInstanceOfSatisfying(LockTimeoutException.class,
                        e -> assertThat(e.elapsed()).isGreaterThanOrEqualTo(Duration.ofMillis(100)));
        release.countDown();
    }

    @Test
    void retriesShouldEndTheWaitBeforeALongWaitTime() throws Exception {
        CountDownLatch release = holdElsewhere(keys("k"));

        assertThatThrownBy(() -> registry.acquire(keys("k"), DEFAULTS.withRetries(2)
                .withRetryInterval(Duration.ofMillis(5)).withWaitTime(Duration.ofMinutes(10))))
                .isInstanceOfSatisfying(LockTimeoutException.class, e -> assertThat(e.attempts()).isEqualTo(3));
        release.countDown();
    }

    @Test
    void zeroRetryIntervalShouldRetryAtOnce() throws Exception {
        CountDownLatch release = holdElsewhere(keys("zero_interval_key"));

        assertThatThrownBy(() -> registry.acquire(keys("zero_interval_key"),
                DEFAULTS.withRetries(2).withRetryInterval(Duration.ZERO)))
                .isInstanceOfSatisfying(LockTimeoutException.class, e -> assertThat(e.attempts()).isEqualTo(3));
        release.countDown();
    }

    // ---- retry interval functions (seed: "function-based retry_interval") ---------------------------

    @Test
    void retryIntervalFunctionShouldBeCalledWithEachFailedAttempt() throws Exception {
        CountDownLatch release = holdElsewhere(keys("exp_backoff_key"));
        List<Integer> calls = new CopyOnWriteArrayList<>();
        IntFunction<Duration> exponential = attempt -> {
            calls.add(attempt);
            return Duration.ofMillis(Math.round(10 * Math.pow(2, attempt)));
        };

        assertThatThrownBy(() -> registry.acquire(keys("exp_backoff_key"),
                DEFAULTS.withRetries(3).withRetryInterval(exponential)))
                .isInstanceOf(LockTimeoutException.class);

        assertThat(calls).containsExactly(0, 1, 2);
        release.countDown();
    }

    @Test
    void retryIntervalFunctionShouldNotBeCalledWhenNoPauseIsDue() throws Exception {
        CountDownLatch release = holdElsewhere(keys("k"));
        List<Integer> calls = new CopyOnWriteArrayList<>();

        assertThatThrownBy(() -> registry.acquire(keys("k"), DEFAULTS.withRetries(0).withRetryInterval(attempt -> {
            calls.add(attempt);
            return Duration.ZERO;
        }))).isInstanceOf(LockTimeoutException.class);

        assertThat(calls).isEmpty();
        release.countDown();
    }

    @Test
    void retryIntervalFunctionReturningZeroShouldRetryAtOnce() throws Exception {
        CountDownLatch release = holdElsewhere(keys("zero_return_key"));

        assertThatThrownBy(() -> registry.acquire(keys("zero_return_key"),
                DEFAULTS.withRetries(2).withRetryInterval(attempt -> Duration.ZERO)))
                .isInstanceOfSatisfying(LockTimeoutException.class, e -> assertThat(e.attempts()).isEqualTo(3));
        release.countDown();
    }

    @Test
    void retryIntervalFunctionReturningNegativeOrNullShouldFailInTheCallerWithNothingLocked() throws Exception {
        CountDownLatch release = holdElsewhere(keys("invalid_return_key"));

        assertThatThrownBy(() -> registry.acquire(keys("other", "invalid_return_key"),
                DEFAULTS.withRetries(1).withRetryInterval(attempt -> Duration.ofMillis(-1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retry interval function must return a non-negative duration");
        assertThatThrownBy(() -> registry.acquire(keys("invalid_return_key"),
                DEFAULTS.withRetries(1).withRetryInterval(attempt -> null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retry interval function must return a non-negative duration");

        assertThat(heldKeys()).containsExactly("invalid_return_key");
        release.countDown();
    }

    // ---- leases, ownership, re-entry -----------------------------------------------------------------

    @Test
    void tryAcquireShouldNeverWait() throws Exception {
        CountDownLatch release = holdElsewhere(keys("k"));
        assertThat(registry.tryAcquire(keys("k"))).isEmpty();
        release.countDown();
    }

    @Test
    void closeShouldBeIdempotentAndWorkFromAnyThread() throws Exception {
        Lease lease = registry.acquire(keys("k"));

        threads.run(() -> {
            lease.close();
            lease.close();
            return null;
        });
        lease.close();

        assertThat(heldKeys()).isEmpty();
        Optional<Lease> next = threads.run(() -> registry.tryAcquire(keys("k")));
        assertThat(next).isPresent();
        lease.close();
        assertThat(next.get().isHeld()).as("a second close must not release the next holder").isTrue();
        next.get().close();
    }

    @Test
    void sameThreadShouldReenterAndKeepTheKeyUntilItsLastLeaseCloses() {
        Lease outer = registry.acquire(keys("a"));
        Lease inner = registry.acquire(keys("a"), DEFAULTS.withRetries(0));

        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        outer.close();
        assertThat(heldKeys()).containsExactly("a");
        assertThat(inner.isHeld()).isTrue();
        inner.close();
        assertThat(heldKeys()).isEmpty();
    }

    @Test
    void nestedAcquireOfNewKeysShouldTakeThemAndGetANewerToken() {
        try (Lease outer = registry.acquire(keys("b"))) {
            try (Lease inner = registry.acquire(keys("a", "b", "c"), DEFAULTS.withRetries(0))) {
                assertThat(inner.keys()).containsExactly("a", "b", "c");
                assertThat(inner.fencingToken()).isGreaterThan(outer.fencingToken());
                assertThat(heldKeys()).containsExactly("a", "b", "c");
            }
            assertThat(heldKeys()).containsExactly("b");
        }
        assertThat(heldKeys()).isEmpty();
    }

    @Test
    void otherThreadsShouldNotReenter() throws Exception {
        try (Lease lease = registry.acquire(keys("k"))) {
            assertThat(threads.run(() -> registry.tryAcquire(keys("k")))).isEmpty();
        }
    }

    @Test
    void closingALeaseWhoseLockWasTakenShouldNotReleaseTheNewHolder() throws Exception {
        Lease old = registry.acquire(keys("k"));
        assertThat(registry.forceRelease("k")).isTrue();
        assertThat(old.isHeld()).isFalse();

        Lease current = threads.run(() -> registry.acquire(keys("k")));
        old.close();

        assertThat(current.isHeld()).isTrue();
        assertThat(heldKeys()).containsExactly("k");
        current.close();
    }

    @Test
    void fencingTokensShouldIncreaseForEveryKey() {
        long previous = 0;
        for (int i = 0; i < 20; i++) {
            try (Lease lease = registry.acquire(keys("k"))) {
                assertThat(lease.fencingToken()).isGreaterThan(previous);
                previous = lease.fencingToken();
            }
        }
        long a;
        try (Lease lease = registry.acquire(keys("a"))) {
            a = lease.fencingToken();
        }
        try (Lease both = registry.acquire(keys("a", "k"))) {
            assertThat(both.fencingToken()).isGreaterThan(a).isGreaterThan(previous);
            assertThat(registry.heldLocks()).extracting(HeldLock::fencingToken)
                    .containsOnly(both.fencingToken());
        }
    }

    @Test
    void fencingTokensShouldIncreaseForAKeyUnderConcurrency() throws Exception {
        int workers = 4;
        List<Long> seen = Collections.synchronizedList(new ArrayList<>());
        List<Future<Object>> futures = new ArrayList<>();
        AcquireOptions patient = DEFAULTS.withInfiniteRetries().withRetryInterval(Duration.ofMillis(1));
        for (int w = 0; w < workers; w++) {
            futures.add(threads.start(() -> {
                for (int i = 0; i < 200; i++) {
                    try (Lease lease = registry.acquire(keys("hot", "w" + ThreadLocalRandom.current().nextInt(4)), patient)) {
                        seen.add(lease.fencingToken()); // appended under the lock: in acquisition order
                    }
                }
                return null;
            }));
        }
        for (Future<Object> future : futures) {
            Threads.get(future);
        }
        assertThat(seen).hasSize(workers * 200).isSorted().doesNotHaveDuplicates();
    }

    /**
     * Issue 27, observation 1: leases of two keys out of three, taken by threads of two nodes when two registries
     * of the backend share their locks (a distributed backend), so that acquires of different key sets overlap
     * and wait for each other in the store. Each holder records (key, token) under its lock, so each key's
     * records are in acquisition order: per key, the tokens must strictly increase (SPEC 3).
     */
    @Test
    void fencingTokensShouldIncreasePerKeyForContendedMultiKeyLeasesOfSeveralNodes() throws Exception {
        LockRegistry other = registry(DEFAULTS);
        boolean shared;
        try (Lease probe = registry.acquire(keys("probe"))) {
            shared = other.tryAcquire(keys("probe")).isEmpty();
        }
        List<String> keyNames = List.of("fa", "fb", "fc");
        List<List<Long>> tokens = keyNames.stream()
                .map(k -> Collections.synchronizedList(new ArrayList<Long>())).toList();
        int workers = 6;
        int rounds = Math.max(100, mutualExclusionRounds() / 5);
        AcquireOptions patient = DEFAULTS.withInfiniteRetries().withRetryInterval(Duration.ofMillis(1));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Object>> futures = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            LockRegistry node = shared && w % 2 == 1 ? other : registry;
            futures.add(threads.start(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                start.await();
                for (int i = 0; i < rounds; i++) {
                    int left = random.nextInt(keyNames.size());
                    List<Integer> picked = List.of(left, (left + 1 + random.nextInt(2)) % keyNames.size());
                    try (Lease lease = node.acquire(picked.stream().map(keyNames::get).toList(), patient)) {
                        for (int k : picked) {
                            tokens.get(k).add(lease.fencingToken()); // under the key's lock: in its order
                        }
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<Object> future : futures) {
            Threads.get(future, Duration.ofMinutes(3));
        }
        for (int k = 0; k < keyNames.size(); k++) {
            List<Long> ofKey = tokens.get(k);
            assertThat(ofKey).as("tokens of %s in acquisition order", keyNames.get(k)).isNotEmpty();
            for (int i = 1; i < ofKey.size(); i++) {
                assertThat(ofKey.get(i)).as("token %d of %s (after %s)", i, keyNames.get(k), ofKey.get(i - 1))
                        .isGreaterThan(ofKey.get(i - 1));
            }
        }
    }

    // ---- holdAtLeast and tryAcquire with options (SPEC 3 and 10) -----------------------------------------

    /** How long the holdAtLeast tests hold a key after its acquire. */
    private static final Duration HOLD = Duration.ofMillis(1500);
    /**
     * What a backend's clock may add to a stored time: leases and holds go to the store in whole milliseconds,
     * rounded up, and a test store reads its wall clock and its monotonic one a moment apart.
     */
    private static final Duration CLOCK_SLACK = Duration.ofMillis(5);

    /**
     * A second node on the same locks where the backend has nodes (another registry on the same server), else
     * this registry (used from other threads).
     */
    private LockRegistry otherNode() {
        LockRegistry other = registry(DEFAULTS);
        try (Lease probe = registry.acquire(keys("probe"))) {
            return other.tryAcquire(keys("probe")).isEmpty() ? other : registry;
        }
    }

    /**
     * Tries {@code key} on {@code node} every 20 ms on the calling thread (whose lease it is then; Awaitility would
     * poll on a thread of its own, which ends) until it is taken, for at most 20 s.
     */
    private static Lease takeOnThisThread(LockRegistry node, String key) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        for (;;) {
            Optional<Lease> lease = node.tryAcquire(keys(key));
            if (lease.isPresent()) {
                return lease.get();
            }
            assertThat(System.nanoTime() - deadline).as("'%s' taken within 20 s", key).isNegative();
            Thread.sleep(20);
        }
    }

    @Test
    void holdAtLeastShouldKeepAnEarlyClosedLeasesKeysLockedForEveryoneTheCloserIncludedUntilItsTime()
            throws Exception {
        LockRegistry other = otherNode();
        Lease lease = registry.acquire(keys("job"), DEFAULTS.withHoldAtLeast(HOLD));
        HeldLock taken = registry.heldLock("job").orElseThrow();
        Thread.sleep(100);
        lease.close();

        assertThat(lease.isHeld()).isFalse();
        assertThat(registry.tryAcquire(keys("job"))).as("the closing thread").isEmpty();
        assertThat(threads.run(() -> registry.tryAcquire(keys("job")))).as("another thread").isEmpty();
        assertThat(threads.run(() -> other.tryAcquire(keys("job")))).as("another node").isEmpty();
        HeldLock held = registry.heldLock("job").orElseThrow();
        Instant until = taken.acquiredAt().plus(HOLD);
        assertThat(held.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(held.acquiredAt()).isEqualTo(taken.acquiredAt());
        assertThat(held.expiresAt()).as("acquiredAt + holdAtLeast after the early close")
                .isBetween(until.minus(CLOCK_SLACK), until.plus(CLOCK_SLACK));
        assertThat(other.heldLock("job").orElseThrow().expiresAt()).isBetween(until.minus(CLOCK_SLACK),
                until.plus(CLOCK_SLACK));
        assertThat(held.stale()).isFalse();

        Lease next = takeOnThisThread(registry, "job");
        try (next) {
            assertThat(registry.heldLock("job").orElseThrow().acquiredAt())
                    .as("taken again no earlier than acquiredAt + holdAtLeast, by the backend's clock")
                    .isAfterOrEqualTo(until.minus(CLOCK_SLACK));
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
    }

    /**
     * A waiter that would only poll every 10 s or more gets the key a moment after the hold ends: it was woken
     * (by a timer or the release notice, never its own poll).
     */
    @Test
    void holdAtLeastShouldWakeWaitersOfEveryNodeWhenItsTimeComes() throws Exception {
        LockRegistry other = otherNode();
        Lease lease = registry.acquire(keys("job"), DEFAULTS.withHoldAtLeast(HOLD));
        Instant until = registry.heldLock("job").orElseThrow().acquiredAt().plus(HOLD);
        lease.close();
        AcquireOptions sleepy = DEFAULTS.withInfiniteRetries().withRetryInterval(Duration.ofSeconds(10))
                .withWaitTime(Duration.ofSeconds(60));
        CountDownLatch waiting = new CountDownLatch(2);
        Future<Instant> there = threads.start(() -> {
            waiting.countDown();
            try (Lease got = other.acquire(keys("job"), sleepy)) {
                return other.heldLock("job").orElseThrow().acquiredAt();
            }
        });
        Future<Instant> here = threads.start(() -> {
            waiting.countDown();
            try (Lease got = registry.acquire(keys("job"), sleepy)) {
                return registry.heldLock("job").orElseThrow().acquiredAt();
            }
        });
        assertThat(waiting.await(Threads.BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        for (Future<Instant> waiter : List.of(there, here)) {
            Instant got = Threads.get(waiter);
            assertThat(got).as("not before the hold ended, by the backend's clock")
                    .isAfterOrEqualTo(until.minus(CLOCK_SLACK));
            assertThat(Duration.between(until, got)).as("woken, not polling every 10 s")
                    .isLessThan(Duration.ofSeconds(8));
        }
    }

    @Test
    void closingAfterHoldAtLeastHasPassedShouldFreeTheKeysAtOnce() throws Exception {
        Lease lease = registry.acquire(keys("a", "b"), DEFAULTS.withHoldAtLeast(Duration.ofMillis(100)));
        Thread.sleep(1_500);
        lease.close();

        assertThat(heldKeys()).isEmpty();
        Optional<Lease> again = threads.run(() -> registry.tryAcquire(keys("a", "b")));
        assertThat(again).isPresent();
        again.get().close();
    }

    @Test
    void holdAtLeastShouldNeverTouchALockThatSomeoneElseTookMeanwhile() throws Exception {
        Duration timeout = Duration.ofMillis(300);
        Lease old = registry.acquire(keys("k"), DEFAULTS.withLockTimeout(timeout).withHoldAtLeast(timeout));
        LockRegistry other = otherNode();
        AtomicReference<Lease> taken = new AtomicReference<>();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<Object> holder = threads.start(() -> { // once the old lease expired; held until released
            try (Lease lease = takeOnThisThread(other, "k")) {
                taken.set(lease);
                holding.countDown();
                release.await();
            }
            return null;
        });
        assertThat(holding.await(Threads.BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        Lease current = taken.get();
        assertThat(old.isHeld()).isFalse();
        old.close();

        HeldLock held = registry.heldLock("k").orElseThrow();
        assertThat(held.fencingToken()).isEqualTo(current.fencingToken());
        assertThat(Duration.between(held.acquiredAt(), held.expiresAt())).as("its own lock timeout, not shortened")
                .isBetween(Duration.ofSeconds(29), Duration.ofSeconds(31));
        Thread.sleep(timeout.toMillis() + 100);
        assertThat(current.isHeld()).isTrue();
        assertThat(registry.heldLock("k").orElseThrow().fencingToken()).isEqualTo(current.fencingToken());
        assertThat(registry.tryAcquire(keys("k"))).isEmpty();
        release.countDown();
        Threads.get(holder);
    }

    @Test
    void holdAtLeastLargerThanTheLockTimeoutShouldBeRefusedNamingBoth() {
        assertThatThrownBy(() -> DEFAULTS.withLockTimeout(Duration.ofSeconds(1)).withHoldAtLeast(Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtLeast").hasMessageContaining("lockTimeout");
        assertThatThrownBy(() -> DEFAULTS.withHoldAtLeast(Duration.ofSeconds(2)).withLockTimeout(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtLeast").hasMessageContaining("lockTimeout");
        assertThat(heldKeys()).isEmpty();
    }

    @Test
    void tryAcquireWithOptionsShouldUseTheirLockTimeoutAndNeverWait() throws Exception {
        Optional<Lease> lease = registry.tryAcquire(keys("t"), DEFAULTS.withLockTimeout(Duration.ofSeconds(7)));
        assertThat(lease).isPresent();
        try (Lease held = lease.get()) {
            HeldLock lock = registry.heldLock("t").orElseThrow();
            assertThat(Duration.between(lock.acquiredAt(), lock.expiresAt()))
                    .isBetween(Duration.ofMillis(6_900), Duration.ofMillis(7_100));
            assertThat(Duration.between(held.acquiredAt(), held.expiresAt()))
                    .isBetween(Duration.ofMillis(6_500), Duration.ofMillis(7_100));
            AcquireOptions patient = DEFAULTS.withInfiniteRetries().withWaitTime(Duration.ofHours(1));
            assertThat(threads.run(() -> registry.tryAcquire(keys("t"), patient)))
                    .as("one attempt, whatever the options' wait (a wait would outlast the thread's bound)").isEmpty();
        }
    }

    /**
     * ShedLock's use: two nodes tick one job every 100 ms for 5 s, each run taken with {@code tryAcquire} and
     * {@code holdAtLeast = 1s}. Runs never overlap, and no run starts less than 1 s after the one before, measured
     * by the backend's clock (the acquire times it stores), so that a loaded machine cannot make it flake.
     */
    @Test
    void twoNodesTickingOneJobWithHoldAtLeastShouldRunItOnOneNodeAtATimeAtMostOncePerHold() throws Exception {
        LockRegistry other = otherNode();
        Duration hold = Duration.ofSeconds(1);
        AcquireOptions options = DEFAULTS.withLockTimeout(Duration.ofSeconds(10)).withHoldAtLeast(hold);
        java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger overlaps = new java.util.concurrent.atomic.AtomicInteger();
        List<Instant> starts = Collections.synchronizedList(new ArrayList<>());
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<Future<Object>> nodes = new ArrayList<>();
        for (LockRegistry node : List.of(registry, other)) {
            nodes.add(threads.start(() -> {
                while (System.nanoTime() - end < 0) {
                    Optional<Lease> run = node.tryAcquire(keys("report"), options);
                    if (run.isPresent()) {
                        try (Lease lease = run.get()) {
                            if (running.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            HeldLock lock = node.heldLock("report").orElseThrow();
                            assertThat(lock.fencingToken()).isEqualTo(lease.fencingToken());
                            starts.add(lock.acquiredAt());
                            Thread.sleep(ThreadLocalRandom.current().nextInt(50));
                            running.decrementAndGet();
                        }
                    }
                    Thread.sleep(100);
                }
                return null;
            }));
        }
        for (Future<Object> node : nodes) {
            Threads.get(node);
        }
        assertThat(overlaps).hasValue(0);
        assertThat(starts).as("runs in 5 s").hasSizeGreaterThanOrEqualTo(2);
        List<Instant> sorted = new ArrayList<>(starts);
        sorted.sort(null);
        assertThat(sorted).as("in the order they ran").isEqualTo(starts);
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(Duration.between(sorted.get(i - 1), sorted.get(i))).as("run %d after run %d", i, i - 1)
                    .isGreaterThanOrEqualTo(hold.minus(CLOCK_SLACK));
        }
    }

    @Test
    void heldLockShouldDescribeTheHolder() {
        Instant before = Instant.now().minusSeconds(1);
        try (Lease lease = registry.acquire(keys("k"), DEFAULTS.withLockTimeout(Duration.ofSeconds(30)))) {
            HeldLock held = registry.heldLock("k").orElseThrow();
            assertThat(held.key()).isEqualTo("k");
            assertThat(held.owner()).contains(Thread.currentThread().getName());
            assertThat(held.fencingToken()).isEqualTo(lease.fencingToken());
            assertThat(held.acquiredAt()).isAfter(before).isBefore(Instant.now().plusSeconds(1));
            assertThat(Duration.between(held.acquiredAt(), held.expiresAt()))
                    .isBetween(Duration.ofSeconds(29), Duration.ofSeconds(31));
            assertThat(held.stale()).isFalse();
            assertThat(lease.acquiredAt()).isBetween(before, Instant.now().plusSeconds(1));
            assertThat(Duration.between(lease.acquiredAt(), lease.expiresAt()))
                    .isBetween(Duration.ofSeconds(29), Duration.ofSeconds(31));
        }
        assertThat(registry.heldLock("k")).isEmpty();
    }

    @Test
    void infiniteLockTimeoutShouldNeverExpire() {
        try (Lease lease = registry.acquire(keys("k"), DEFAULTS.withInfiniteLockTimeout())) {
            assertThat(lease.expiresAt()).isEqualTo(Instant.MAX);
            assertThat(registry.heldLock("k").orElseThrow().expiresAt()).isEqualTo(Instant.MAX);
        }
    }

    @Test
    void withLocksShouldRunTheActionUnderTheLeaseAndRethrowAsIs() {
        String result = registry.withLocks(keys("k"), () -> {
            assertThat(Lease.current()).hasValueSatisfying(lease -> assertThat(lease.keys()).containsExactly("k"));
            assertThat(heldKeys()).containsExactly("k");
            return "ran";
        });
        assertThat(result).isEqualTo("ran");
        assertThat(Lease.current()).isEmpty();

        IllegalStateException thrown = new IllegalStateException("boom");
        assertThatThrownBy(() -> registry.withLocks(keys("k"), () -> {
            throw thrown;
        })).isSameAs(thrown);
        assertThat(heldKeys()).isEmpty();
    }

    // ---- stale locks ---------------------------------------------------------------------------------

    @Test
    void deadOwnersLockShouldBeTakenAtOnceLongBeforeItsTimeout() throws Exception {
        Threads.runAndDie(() -> registry.acquire(keys("stale_key"), DEFAULTS.withLockTimeout(Duration.ofHours(1))));

        assertThat(registry.heldLock("stale_key")).hasValueSatisfying(held -> assertThat(held.stale()).isTrue());
        try (Lease lease = registry.acquire(keys("stale_key"), DEFAULTS.withRetries(0))) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(registry.heldLock("stale_key").orElseThrow().owner())
                    .contains(Thread.currentThread().getName());
        }
    }

    @Test
    void expiredLockShouldBeTakenAndItsOldLeaseShouldKnow() throws Exception {
        AtomicReference<Lease> old = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        threads.start(() -> {
            old.set(registry.acquire(keys("old_key"), DEFAULTS.withLockTimeout(Duration.ofMillis(100))));
            done.await();
            return null;
        });
        await().atMost(Threads.BOUND).until(() -> old.get() != null);
        await().atMost(Threads.BOUND).until(() -> staleOrGone("old_key"));

        Lease current = registry.acquire(keys("old_key"), DEFAULTS.withRetries(0));
        assertThat(old.get().isHeld()).isFalse();
        old.get().close();
        assertThat(current.isHeld()).isTrue();
        assertThat(current.fencingToken()).isGreaterThan(old.get().fencingToken());
        current.close();
        done.countDown();
    }

    @Test
    void sweepShouldRemoveStaleLocksAndKeepLiveOnes() throws Exception {
        Threads.runAndDie(() -> registry.acquire(keys("dead1", "dead2")));
        Lease expired = registry.acquire(keys("expired"), DEFAULTS.withLockTimeout(Duration.ofMillis(50)));
        Lease live = registry.acquire(keys("live"));
        await().atMost(Threads.BOUND).until(() -> staleOrGone("expired"));

        assertThat(registry.sweep()).isEqualTo(3);

        assertThat(heldKeys()).containsExactly("live");
        assertThat(expired.isHeld()).isFalse();
        assertThat(live.isHeld()).isTrue();
        assertThat(registry.sweep()).isZero();
        live.close();
        expired.close();
    }

    // ---- concurrency -------------------------------------------------------------------------------------

    @Test
    void oppositeOrdersShouldNeverDeadlock() throws Exception {
        AcquireOptions patient = DEFAULTS.withInfiniteRetries();
        int rounds = oppositeOrderRounds();
        CountDownLatch start = new CountDownLatch(1);
        Future<Object> ab = threads.start(() -> {
            start.await();
            for (int i = 0; i < rounds; i++) {
                registry.acquire(keys("A", "B"), patient).close();
            }
            return null;
        });
        Future<Object> ba = threads.start(() -> {
            start.await();
            for (int i = 0; i < rounds; i++) {
                registry.acquire(keys("B", "A"), patient).close();
            }
            return null;
        });
        start.countDown();
        Threads.get(ab);
        Threads.get(ba);
        assertThat(heldKeys()).isEmpty();
    }

    /**
     * 8 threads x 10,000 (see {@link #mutualExclusionRounds()}) acquisitions of 1 to 3 random keys out of 16, each incrementing plain (unguarded)
     * counters of its keys inside the lock: the totals are exact only if no two holders ever overlapped.
     */
    @Test
    void randomKeySetsShouldBeMutuallyExclusive() throws Exception {
        int workers = 8;
        int rounds = mutualExclusionRounds();
        int keyCount = 16;
        long[] counters = new long[keyCount];
        long[] expected = new long[keyCount];
        AcquireOptions patient = DEFAULTS.withInfiniteRetries().withRetryInterval(Duration.ofMillis(1));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<long[]>> futures = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            futures.add(threads.start(() -> {
                long[] mine = new long[keyCount];
                ThreadLocalRandom random = ThreadLocalRandom.current();
                start.await();
                for (int i = 0; i < rounds; i++) {
                    int size = 1 + random.nextInt(3);
                    int[] picked = random.ints(0, keyCount).distinct().limit(size).toArray();
                    List<String> lockKeys = Arrays.stream(picked).mapToObj(k -> "key-" + k).toList();
                    try (Lease lease = registry.acquire(lockKeys, patient)) {
                        for (int k : picked) {
                            counters[k]++;
                            mine[k]++;
                        }
                    }
                }
                return mine;
            }));
        }
        start.countDown();
        for (Future<long[]> future : futures) {
            long[] mine = Threads.get(future, Duration.ofMinutes(3));
            for (int k = 0; k < keyCount; k++) {
                expected[k] += mine[k];
            }
        }
        assertThat(counters).containsExactly(expected);
        assertThat(Arrays.stream(expected).sum()).isGreaterThanOrEqualTo((long) workers * rounds);
        assertThat(heldKeys()).isEmpty();
    }
}
