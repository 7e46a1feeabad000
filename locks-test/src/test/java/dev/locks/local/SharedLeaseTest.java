package dev.locks.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LocksObserver;
import dev.locks.contract.Threads;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Shared and counted leases in memory keep what every lease has: the watchdog renews them, a dead owner's lease is
 * swept as stale, holdAtLeast keeps a closed lease's place until its time, force release takes it, and a refused
 * upgrade is counted once, as an error.
 */
class SharedLeaseTest {

    private final List<LocksObserver.AcquireResult> results = new CopyOnWriteArrayList<>();
    private final List<String> stale = new CopyOnWriteArrayList<>();
    private final LocksObserver observer = new LocksObserver() {
        @Override
        public void onAcquire(AcquireResult result, long nanos) {
            results.add(result);
        }

        @Override
        public void onStaleRemoved(StaleReason reason, Remover by) {
            stale.add(reason + "/" + by);
        }
    };
    private final Threads threads = new Threads();
    private LocalLockRegistry registry;

    @AfterEach
    void tearDown() {
        threads.close();
        registry.close();
    }

    private LocalLockRegistry registry(boolean watchdog) {
        registry = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).watchdog(watchdog).observer(observer)
                .build();
        return registry;
    }

    @Test
    void theWatchdogShouldRenewSharedAndCountedLeasesOfLiveOwners() throws Exception {
        registry(true);
        Duration timeout = Duration.ofMillis(300);
        try (Lease reader = registry.acquire(List.of("config"), AcquireOptions.defaults().shared()
                        .withLockTimeout(timeout));
                Lease permit = registry.acquire(List.of("tenant"), AcquireOptions.defaults().withPermits(2)
                        .withLockTimeout(timeout))) {
            Instant firstExpiry = reader.expiresAt();
            await().atMost(Threads.BOUND).until(() -> Instant.now().isAfter(firstExpiry.plus(timeout.multipliedBy(2))));
            assertThat(reader.isHeld()).isTrue();
            assertThat(permit.isHeld()).isTrue();
            assertThat(reader.expiresAt()).isAfter(firstExpiry);
            assertThat(threads.run(() -> registry.tryAcquire(List.of("config")))).isEmpty();
            assertThat(registry.sweep()).isZero();
        }
        assertThat(stale).isEmpty();
    }

    @Test
    void aDeadOwnersSharedLeaseShouldBeSweptAsStale() throws Exception {
        registry(false);
        AtomicReference<Lease> orphan = new AtomicReference<>();
        Threads.runAndDie(() -> orphan.set(registry.acquire(List.of("config"), AcquireOptions.defaults().shared())));
        assertThat(registry.heldLocks()).singleElement().satisfies(lock -> assertThat(lock.stale()).isTrue());
        assertThat(registry.sweep()).isEqualTo(1);
        assertThat(stale).containsExactly("DEAD_OWNER/SWEEP");
        assertThat(orphan.get().isHeld()).isFalse();
        try (Lease writer = registry.tryAcquire(List.of("config")).orElseThrow()) {
            assertThat(writer.fencingToken()).isGreaterThan(orphan.get().fencingToken());
        }
    }

    @Test
    void aSharedLeaseClosedEarlyShouldKeepItsPlaceUntilHoldAtLeast() throws Exception {
        registry(false);
        long before = System.nanoTime();
        Lease reader = registry.acquire(List.of("job"), AcquireOptions.defaults().shared()
                .withHoldAtLeast(Duration.ofMillis(400)));
        reader.close();
        assertThat(reader.isHeld()).isFalse();
        List<HeldLock> held = registry.heldLocks();
        assertThat(held).singleElement().satisfies(lock -> {
            assertThat(lock.expiresAt()).isEqualTo(lock.acquiredAt().plusMillis(400));
            assertThat(lock.owner()).contains("held at least");
        });
        // the key stays taken, for its own thread too, until its time; then it frees itself
        // (measured on the monotonic clock the hold is kept by, once the key is taken: the wall clock may be stepped
        // meanwhile, and a lease's acquiredAt is when its successful attempt began, which a descheduled thread may
        // have begun before the hold ended)
        if (registry.tryAcquire(List.of("job")).isPresent()) {
            assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        } else {
            try (Lease writer = registry.acquire(List.of("job"), AcquireOptions.defaults().withInfiniteRetries()
                    .withWaitTime(Threads.BOUND))) {
                assertThat(Duration.ofNanos(System.nanoTime() - before))
                        .isGreaterThanOrEqualTo(Duration.ofMillis(400));
            }
        }
        assertThat(stale).isEmpty();
    }

    @Test
    void forceReleaseShouldTakeEveryHolderOfAKey() throws Exception {
        registry(false);
        Lease first = registry.acquire(List.of("tenant"), AcquireOptions.defaults().withPermits(3));
        Lease second = registry.acquire(List.of("tenant"), AcquireOptions.defaults().withPermits(3));
        assertThat(registry.forceRelease("tenant")).isTrue();
        assertThat(first.isHeld()).isFalse();
        assertThat(second.isHeld()).isFalse();
        assertThat(registry.heldLocks()).isEmpty();
        first.close();
        second.close();
        assertThat(registry.forceRelease("tenant")).isFalse();
    }

    @Test
    void aRefusedUpgradeShouldCountOnceAsAnError() {
        registry(false);
        try (Lease reader = registry.acquire(List.of("k"), AcquireOptions.defaults().shared())) {
            assertThatThrownBy(() -> registry.acquire(List.of("k"))).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> registry.tryAcquire(List.of("k"))).isInstanceOf(IllegalStateException.class);
            assertThat(reader.isHeld()).isTrue();
        }
        assertThat(results).containsExactly(LocksObserver.AcquireResult.ACQUIRED, LocksObserver.AcquireResult.ERROR,
                LocksObserver.AcquireResult.ERROR);
    }

    @Test
    void aTimeoutShouldSayWhoHoldsTheKey() {
        registry(false);
        try (Lease reader = registry.acquire(List.of("config"), AcquireOptions.defaults().shared());
                Lease permit = registry.acquire(List.of("tenant"), AcquireOptions.defaults().withPermits(2))) {
            assertThatThrownBy(() -> threads.run(() -> registry.acquire(List.of("config"),
                    AcquireOptions.defaults().withRetries(0))))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("'config' is held shared by 1 holder");
            try (Lease second = registry.acquire(List.of("tenant"), AcquireOptions.defaults().withPermits(2))) {
                assertThatThrownBy(() -> registry.acquire(List.of("tenant"),
                        AcquireOptions.defaults().withPermits(2).withRetries(0)))
                        .isInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining("'tenant' is held by all 2 of its permits' holders");
            }
        }
    }
}
