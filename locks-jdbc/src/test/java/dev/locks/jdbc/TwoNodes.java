package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Checks of two registries on one database, as two nodes, shared by every database's two-node tests. */
final class TwoNodes {

    private TwoNodes() {
    }

    /** What node {@code a} holds, {@code b} cannot take, nor list as free; all-or-nothing leaves nothing taken. */
    static void whatOneHoldsTheOtherShouldNotTake(LockRegistry a, LockRegistry b) {
        try (Lease lease = a.acquire(List.of("x", "y"))) {
            assertThat(b.tryAcquire(List.of("y", "z"))).isEmpty();
            assertThat(b.heldLocks()).extracting(HeldLock::key).containsExactly("x", "y");
            assertThat(b.heldLock("z")).isEmpty(); // all-or-nothing: z was not left taken
        }
        assertThat(b.heldLocks()).isEmpty();
        assertThat(b.tryAcquire(List.of("y", "z"))).hasValueSatisfying(Lease::close);
    }

    /**
     * Six threads, three on each node, take a shared key and one of three others {@code rounds} times each: they
     * never hold the shared key together, and an unguarded counter counts every round.
     */
    static void threadsShouldNeverHoldAKeyTogether(LockRegistry a, LockRegistry b, int rounds, Duration bound)
            throws Exception {
        AcquireOptions patient = AcquireOptions.defaults().withInfiniteRetries().withWaitTime(bound);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int[] unguarded = {0};
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                LockRegistry node = t % 2 == 0 ? a : b;
                workers.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        try (Lease lease = node.acquire(List.of("counter", "other-" + (i % 3)), patient)) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            unguarded[0]++;
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(2 * bound.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(unguarded[0]).isEqualTo(6 * rounds);
        assertThat(a.heldLocks()).isEmpty();
    }
}
