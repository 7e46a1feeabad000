package dev.locks.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LocksObserver;
import dev.locks.contract.ScheduledJobChecks;
import dev.locks.contract.Threads;
import dev.locks.test.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What only the in-memory registry does, or what needs its controllable clock. */
class LocalLockRegistryTest {

    private final ManualClock clock = new ManualClock();
    private final Threads threads = new Threads();
    private final List<LocalLockRegistry> registries = new ArrayList<>();

    private LocalLockRegistry registry(LocalLockRegistry.Builder builder) {
        LocalLockRegistry registry = builder.build();
        registries.add(registry);
        return registry;
    }

    private LocalLockRegistry manualClockRegistry() {
        return registry(LocalLockRegistry.builder().clock(clock).cleanupInterval(Duration.ZERO));
    }

    @AfterEach
    void tearDown() {
        threads.close();
        registries.forEach(LocalLockRegistry::close);
    }

    @Test
    void theWatchdogShouldStopAtCloseAndTheHoldShouldShortenARenewedLease() throws Exception {
        ScheduledJobChecks.watchdogShouldStopAtCloseAndTheHoldShouldShortenARenewedLease(
                registry(LocalLockRegistry.builder().watchdog(true).cleanupInterval(Duration.ZERO)));
    }

    /**
     * A lease with a hold re-enters a key its thread holds: the key stays locked until the later of the holds,
     * whichever lease closes last.
     */
    @Test
    void aNestedLeaseWithAHoldShouldKeepTheKeyLockedAfterTheOuterOneCloses() throws Exception {
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().cleanupInterval(Duration.ZERO));
        Lease outer = registry.acquire(List.of("a", "b"));
        Lease oneKey = registry.acquire(List.of("c"));
        Lease inner = registry.acquire(List.of("a", "c"),
                AcquireOptions.defaults().withHoldAtLeast(Duration.ofSeconds(20)));
        inner.close();
        outer.close();
        oneKey.close();

        for (String key : List.of("a", "c")) {
            assertThat(threads.run(() -> registry.tryAcquire(List.of(key)))).as(key).isEmpty();
            assertThat(registry.tryAcquire(List.of(key))).as("nor its thread re-enters %s", key).isEmpty();
            assertThat(registry.heldLock(key).orElseThrow().owner()).contains("held at least");
        }
        Optional<Lease> b = threads.run(() -> registry.tryAcquire(List.of("b")));
        assertThat(b).as("the outer lease's key the hold did not include").isPresent();
        b.get().close();
    }

    @Test
    void lockShouldTurnStaleExactlyAtItsOwnTimeout() throws Exception {
        LocalLockRegistry registry = manualClockRegistry();
        Lease old = threads.run(() -> registry.acquire(List.of("k"), AcquireOptions.defaults()
                .withLockTimeout(Duration.ofSeconds(30))));
        // the holder is a pool thread that stays alive: only the timeout can make it stale

        clock.advance(Duration.ofSeconds(30).minusNanos(1));
        assertThat(registry.tryAcquire(List.of("k"))).isEmpty();
        assertThat(registry.heldLock("k").orElseThrow().stale()).isFalse();

        clock.advance(Duration.ofNanos(1));
        assertThat(registry.heldLock("k").orElseThrow().stale()).isTrue();
        assertThat(old.isHeld()).isFalse();
        Optional<Lease> taken = registry.tryAcquire(List.of("k"));
        assertThat(taken).isPresent();
        taken.get().close();
    }

    @Test
    void watchdogShouldKeepALiveOwnersLockPastItsTimeout() throws Exception {
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().watchdog(true)
                .cleanupInterval(Duration.ZERO));
        // renewed every 300 ms: the watchdog's thread may be late by up to 600 ms on a loaded machine
        AcquireOptions shortLease = AcquireOptions.defaults().withLockTimeout(Duration.ofMillis(900));

        try (Lease lease = registry.acquire(List.of("k"), shortLease)) {
            Thread.sleep(2_500);
            assertThat(lease.isHeld()).isTrue();
            assertThat(threads.run(() -> registry.tryAcquire(List.of("k")))).isEmpty();
            assertThat(registry.heldLock("k").orElseThrow().stale()).isFalse();
        }
    }

    @Test
    void withoutWatchdogALiveOwnerShouldLoseItsLockAfterTheTimeout() throws Exception {
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().cleanupInterval(Duration.ZERO));
        AcquireOptions shortLease = AcquireOptions.defaults().withLockTimeout(Duration.ofMillis(150));

        try (Lease lease = registry.acquire(List.of("k"), shortLease)) {
            Thread.sleep(600);
            assertThat(lease.isHeld()).isFalse();
            Optional<Lease> taken = threads.run(() -> registry.tryAcquire(List.of("k")));
            assertThat(taken).isPresent();
            taken.get().close();
        }
    }

    @Test
    void detachedLeaseShouldOutliveItsThreadAndNotBeReentered() throws Exception {
        LocalLockRegistry registry = manualClockRegistry();
        Lease[] handedOver = new Lease[1];
        Threads.runAndDie(() -> {
            handedOver[0] = registry.acquire(List.of("k"));
            handedOver[0].detach();
            assertThat(registry.tryAcquire(List.of("k"))).as("no re-entry after detach").isEmpty();
        });

        assertThat(registry.heldLock("k").orElseThrow().stale()).isFalse();
        assertThat(registry.heldLock("k").orElseThrow().owner()).contains("detached");
        assertThat(registry.tryAcquire(List.of("k"))).isEmpty();
        handedOver[0].close();
        assertThat(registry.heldLocks()).isEmpty();
    }

    @Test
    void ownPeriodicSweepShouldRemoveStaleLocksWithoutAnyAcquire() throws Exception {
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().cleanupInterval(Duration.ofMillis(50)));
        Threads.runAndDie(() -> registry.acquire(List.of("cleanup_key")));

        await().atMost(Threads.BOUND).until(() -> registry.heldLocks().isEmpty());
    }

    @Test
    void closedRegistryShouldRefuseAcquiresButLetLeasesClose() {
        LocalLockRegistry registry = manualClockRegistry();
        Lease lease = registry.acquire(List.of("k"));

        registry.close();

        assertThatThrownBy(() -> registry.acquire(List.of("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        lease.close();
        assertThat(registry.heldLocks()).isEmpty();
        assertThat(registry.sweep()).as("a sweeper racing the shutdown finds nothing to do").isZero();
    }

    @Test
    void invalidSettingsShouldBeRejectedNamingTheSetting() {
        assertThatThrownBy(() -> LocalLockRegistry.builder().cleanupInterval(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cleanupInterval");
        assertThatThrownBy(() -> LocalLockRegistry.builder().cleanupBatchSize(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cleanupBatchSize");
        assertThatThrownBy(() -> LocalLockRegistry.builder().defaultOptions(null).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("defaultOptions");
    }

    /**
     * 100,000 stale locks swept in batches of 100 while 4 threads keep acquiring their own keys with a single
     * attempt each: every stale lock goes, and no acquirer ever fails or stops making progress.
     */
    @Test
    void sweepOfManyStaleLocksShouldNotBlockAcquirers() throws Exception {
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().clock(clock)
                .cleanupInterval(Duration.ZERO).cleanupBatchSize(100));
        AcquireOptions shortLease = AcquireOptions.defaults().withLockTimeout(Duration.ofSeconds(1));
        for (int i = 0; i < 100_000; i++) {
            registry.acquire(List.of("stale-" + i), shortLease); // never closed
        }
        clock.advance(Duration.ofSeconds(2));

        AtomicBoolean sweeping = new AtomicBoolean(true);
        AtomicLong duringSweep = new AtomicLong();
        AtomicInteger failures = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(4);
        List<Future<Object>> acquirers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            String key = "live-" + t;
            acquirers.add(threads.start(() -> {
                started.countDown();
                while (sweeping.get()) {
                    Optional<Lease> lease = registry.tryAcquire(List.of(key));
                    if (lease.isEmpty()) {
                        failures.incrementAndGet();
                    } else {
                        lease.get().close();
                        duringSweep.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        started.await(Threads.BOUND.toMillis(), TimeUnit.MILLISECONDS);

        int removed = registry.sweep();
        sweeping.set(false);
        for (Future<Object> acquirer : acquirers) {
            Threads.get(acquirer);
        }

        assertThat(removed).isEqualTo(100_000);
        assertThat(registry.heldLocks()).isEmpty();
        assertThat(failures).hasValue(0);
        assertThat(duringSweep.get()).isPositive();
    }

    @Test
    void observerShouldSeeEveryKindOfEvent() throws Exception {
        Map<String, AtomicInteger> events = new ConcurrentHashMap<>();
        LocksObserver observer = new LocksObserver() {
            @Override
            public void onAcquire(AcquireResult result, long nanos) {
                count("acquire:" + result.tag());
            }

            @Override
            public void onStaleRemoved(StaleReason reason, Remover by) {
                count("stale:" + reason.tag() + ":" + by.tag());
            }

            @Override
            public void onSweep(int removed, long nanos) {
                count("sweep:" + removed);
            }

            @Override
            public void onLeaseLost(String key) {
                count("lost:" + key);
            }

            private void count(String event) {
                events.computeIfAbsent(event, e -> new AtomicInteger()).incrementAndGet();
            }
        };
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().clock(clock).observer(observer)
                .cleanupInterval(Duration.ZERO));

        registry.acquire(List.of("a")).close();
        Threads.runAndDie(() -> registry.acquire(List.of("dead")));
        registry.acquire(List.of("dead")).close();
        Lease expiring = threads.run(() -> registry.acquire(List.of("exp"),
                AcquireOptions.defaults().withLockTimeout(Duration.ofSeconds(1))));
        clock.advance(Duration.ofSeconds(2));
        registry.sweep();
        expiring.close();
        Lease held = threads.run(() -> registry.acquire(List.of("held")));
        assertThatThrownBy(() -> registry.acquire(List.of("held"), AcquireOptions.defaults().withRetries(0)));
        assertThatThrownBy(() -> registry.acquire(List.of("held"), AcquireOptions.defaults().withRetries(1)
                .withRetryInterval(attempt -> null)));
        held.close();

        assertThat(events).containsOnlyKeys("acquire:acquired", "acquire:timeout", "acquire:error",
                "stale:dead-owner:acquire", "stale:expired:sweep", "sweep:1", "lost:exp");
        assertThat(events.get("acquire:acquired")).hasValue(5);
    }

    @Test
    void throwingObserverShouldNeverBreakAcquireOrRelease() {
        LocksObserver broken = new LocksObserver() {
            @Override
            public void onAcquire(AcquireResult result, long nanos) {
                throw new IllegalStateException("metrics down");
            }

            @Override
            public void onLeaseLost(String key) {
                throw new IllegalStateException("metrics down");
            }
        };
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().observer(broken)
                .cleanupInterval(Duration.ZERO));

        Lease lease = registry.acquire(List.of("k"));
        registry.forceRelease("k");
        lease.close();

        assertThat(registry.heldLocks()).isEmpty();
        registry.acquire(List.of("k")).close();
    }

    @Test
    void timestampsShouldBeTheSameInstantWhereverAndWheneverShown() throws Exception {
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().cleanupInterval(Duration.ZERO));
        try (Lease lease = registry.acquire(List.of("k"))) {
            HeldLock first = registry.heldLock("k").orElseThrow();
            Thread.sleep(5);
            assertThat(registry.heldLock("k").orElseThrow().acquiredAt()).isEqualTo(first.acquiredAt())
                    .isEqualTo(lease.acquiredAt()).isEqualTo(lease.acquiredAt());
            assertThat(lease.expiresAt()).isEqualTo(first.expiresAt());
        }
    }

    @Test
    void heldLocksShouldBeSortedByKey() {
        LocalLockRegistry registry = manualClockRegistry();
        try (Lease lease = registry.acquire(IntStream.range(0, 20).mapToObj(i -> "k" + (char) ('t' - i)).toList())) {
            assertThat(registry.heldLocks()).extracting(HeldLock::key).isSorted().hasSize(20);
            assertThat(registry.heldCount()).isEqualTo(20);
        }
        assertThat(registry.forceRelease("unknown")).isFalse();
    }

    @Test
    void acquireDetachedIfFreeShouldTakeFreeKeysUnderItsOwnOptionsAndNeverWaitNorCountATimeout() throws Exception {
        Map<String, AtomicInteger> results = new ConcurrentHashMap<>();
        LocksObserver observer = new LocksObserver() {
            @Override
            public void onAcquire(AcquireResult result, long nanos) {
                results.computeIfAbsent(result.tag(), r -> new AtomicInteger()).incrementAndGet();
            }
        };
        LocalLockRegistry registry = registry(LocalLockRegistry.builder().clock(clock).observer(observer)
                .cleanupInterval(Duration.ZERO));
        AcquireOptions shortTimeout = AcquireOptions.defaults().withLockTimeout(Duration.ofSeconds(5));

        Lease solo = registry.acquireDetachedIfFree(List.of("a"), shortTimeout).orElseThrow();
        Lease pair = registry.acquireDetachedIfFree(List.of("c", "b"), shortTimeout).orElseThrow();
        assertThat(pair.keys()).containsExactly("b", "c");
        assertThat(solo.expiresAt()).isEqualTo(solo.acquiredAt().plusSeconds(5));
        assertThat(pair.expiresAt()).isEqualTo(pair.acquiredAt().plusSeconds(5));

        Lease other = threads.run(() -> registry.acquireDetachedIfFree(List.of("b", "d"), shortTimeout)
                .orElse(null));
        assertThat(other).as("b is held: nothing taken, not even d").isNull();
        assertThat(registry.heldLock("d")).isEmpty();
        assertThat(results).as("an attempt that found a key held is no timeout: its caller waits elsewhere")
                .containsOnlyKeys("acquired");
        assertThat(results.get("acquired")).hasValue(2);

        clock.advance(Duration.ofSeconds(5));
        assertThat(solo.isHeld()).as("the options' lock timeout, not the default 30 s").isFalse();
        pair.close();
        solo.close();
        assertThat(registry.heldLocks()).isEmpty();
        assertThatThrownBy(() -> registry.acquireDetachedIfFree(List.of(" "), shortTimeout))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0");
    }

    @Test
    void acquireDetachedIfFreeShouldNeitherReenterTheThreadsKeysNorBeReenteredByIt() {
        LocalLockRegistry registry = manualClockRegistry();

        try (Lease mine = registry.acquire(List.of("held"))) {
            assertThat(registry.acquireDetachedIfFree(List.of("held"), AcquireOptions.defaults()))
                    .as("a key this thread holds counts as held: the lease is for work on other threads").isEmpty();
            assertThat(registry.acquireDetachedIfFree(List.of("free", "held"), AcquireOptions.defaults())).isEmpty();
            assertThat(registry.heldLock("free")).isEmpty();
            assertThat(mine.isHeld()).isTrue();
        }
        Lease detached = registry.acquireDetachedIfFree(List.of("held"), AcquireOptions.defaults()).orElseThrow();
        assertThat(registry.tryAcquire(List.of("held"))).as("nor does the thread re-enter the detached lease")
                .isEmpty();
        Lease pair = registry.acquireDetachedIfFree(List.of("x", "y"), AcquireOptions.defaults()).orElseThrow();
        assertThat(registry.tryAcquire(List.of("y"))).isEmpty();
        detached.close();
        pair.close();
        assertThat(registry.heldLocks()).isEmpty();
    }
}
