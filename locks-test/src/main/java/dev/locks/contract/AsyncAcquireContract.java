package dev.locks.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import dev.locks.support.AbstractLockRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link LockRegistry#acquireAsync} promises on every backend (SPEC section 3): all-or-nothing, mutual
 * exclusion among asynchronous and blocking acquirers, wake-up on release, timeouts, cancellation that leaves
 * nothing held (a lease that arrives after it included), bad keys as a failed future, no starvation by blocking
 * callers, and ten thousand pending acquisitions that cost memory, not threads. A backend subclasses this and
 * provides {@link #newRegistry}.
 */
public abstract class AsyncAcquireContract {

    /** Waits that only a wake-up can end within {@link Threads#BOUND}: the retry interval is far longer. */
    protected static final AcquireOptions WOKEN_ONLY = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMinutes(2)).withWaitTime(Duration.ofMinutes(5))
            .withLockTimeout(Duration.ofMinutes(5));

    protected LockRegistry registry;
    protected Threads threads;
    private final List<LockRegistry> created = new ArrayList<>();

    /** A new, empty registry of the backend under test with these default options. */
    protected abstract LockRegistry newRegistry(AcquireOptions defaults);

    /** Closes a registry made by {@link #newRegistry}. */
    protected void closeRegistry(LockRegistry registry) throws Exception {
        if (registry instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    /**
     * How many rounds each acquirer of {@link #asyncAndBlockingAcquirersShouldExcludeEachOther} makes: 500 in memory,
     * 100 on a backend whose every acquisition is round trips to a server (and, on a cluster, one per slot).
     */
    protected int mutualExclusionRounds() {
        return "local".equals(registry.backend()) ? 500 : 100;
    }

    @BeforeEach
    void setUpAsyncContract() {
        threads = new Threads();
        registry = newRegistry(AcquireOptions.defaults());
        created.add(registry);
    }

    @AfterEach
    void tearDownAsyncContract() throws Exception {
        threads.close();
        for (LockRegistry made : created) {
            closeRegistry(made);
        }
    }

    /** Holds {@code keys} on another thread until the returned latch is counted down. */
    private CountDownLatch holdElsewhere(List<String> keys) throws Exception {
        CountDownLatch taken = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        threads.start(() -> {
            try (Lease lease = registry.acquire(keys, WOKEN_ONLY)) {
                taken.countDown();
                release.await();
            }
            return null;
        });
        assertThat(taken.await(Threads.BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        return release;
    }

    private static <T> T join(CompletableFuture<T> future) throws Exception {
        return Threads.get(future);
    }

    /** Whether another thread can take {@code keys} at once: nothing holds them, nobody waits for them. */
    private boolean freeForAll(List<String> keys) throws Exception {
        Optional<Lease> lease = threads.run(() -> registry.tryAcquire(keys));
        lease.ifPresent(Lease::close);
        return lease.isPresent();
    }

    /** How many asynchronous acquires the registry has pending ({@code 0} for a registry that cannot tell). */
    private int pending() {
        return registry instanceof AbstractLockRegistry engine ? engine.asyncAcquiresPending() : 0;
    }

    private List<String> heldKeys() {
        return registry.heldLocks().stream().map(HeldLock::key).toList();
    }

    // ---- taking ----------------------------------------------------------------------------------------

    @Test
    void freeKeysShouldBeTakenSortedWithAGreaterToken() throws Exception {
        long before;
        try (Lease first = registry.acquire(List.of("a"))) {
            before = first.fencingToken();
        }
        try (Lease lease = join(registry.acquireAsync(List.of("b", "a", "b"), AcquireOptions.defaults()))) {
            assertThat(lease.keys()).containsExactly("a", "b");
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.fencingToken()).isGreaterThan(before);
            assertThat(heldKeys()).containsExactly("a", "b");
        }
        assertThat(heldKeys()).isEmpty();
    }

    @Test
    void anAsyncLeaseShouldNotBeReenteredAndShouldCloseFromAnyThread() throws Exception {
        Lease lease = join(registry.acquireAsync(List.of("k"), AcquireOptions.defaults()));

        assertThat(registry.tryAcquire(List.of("k"))).isEmpty(); // not this thread's: no re-entry
        threads.run(() -> {
            lease.close();
            return null;
        });

        assertThat(lease.isHeld()).isFalse();
        assertThat(freeForAll(List.of("k"))).isTrue();
    }

    @Test
    void aHeldKeyShouldLeaveNothingTakenAndTheWaitShouldEndOnRelease() throws Exception {
        CountDownLatch release = holdElsewhere(List.of("b"));

        CompletableFuture<Lease> waiting = registry.acquireAsync(List.of("a", "b"), WOKEN_ONLY);

        assertThat(heldKeys()).containsExactly("b"); // "a" may be its claim (SPEC "No starvation"), not held
        assertThat(waiting).isNotDone();
        release.countDown();
        try (Lease lease = join(waiting)) { // the retry interval is minutes: only the release woke it
            assertThat(lease.keys()).containsExactly("a", "b");
        }
        assertThat(freeForAll(List.of("a", "b"))).isTrue();
    }

    @Test
    void aWaitThatRunsOutShouldFailWithATimeoutAndHoldNothing() throws Exception {
        CountDownLatch release = holdElsewhere(List.of("b"));

        CompletableFuture<Lease> waiting = registry.acquireAsync(List.of("a", "b"), AcquireOptions.defaults()
                .withInfiniteRetries().withRetryInterval(Duration.ofMillis(20)).withWaitTime(Duration.ofMillis(300)));

        assertThatThrownBy(() -> join(waiting)).isInstanceOf(LockTimeoutException.class).hasMessageContaining("'b'");
        assertThat(heldKeys()).containsExactly("b");
        release.countDown();
        await().atMost(Threads.BOUND).until(() -> freeForAll(List.of("a", "b")));
    }

    @Test
    void noRetriesShouldMeanOneAttempt() throws Exception {
        CountDownLatch release = holdElsewhere(List.of("k"));

        CompletableFuture<Lease> once = registry.acquireAsync(List.of("k"), AcquireOptions.defaults().withRetries(0));

        assertThatThrownBy(() -> join(once)).isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("1 attempt");
        release.countDown();
    }

    @Test
    void badKeysShouldFailTheFutureBeforeAnythingIsLocked() throws Exception {
        List<String> keys = new ArrayList<>(List.of("a", " "));

        CompletableFuture<Lease> refused = registry.acquireAsync(keys, AcquireOptions.defaults());

        assertThat(refused).isCompletedExceptionally();
        assertThatThrownBy(() -> join(refused)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1");
        keys.set(1, null);
        assertThatThrownBy(() -> join(registry.acquireAsync(keys, AcquireOptions.defaults())))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> join(registry.acquireAsync(List.of("a"), null)))
                .isInstanceOf(NullPointerException.class);
        assertThat(heldKeys()).isEmpty();
    }

    // ---- cancellation ----------------------------------------------------------------------------------

    @Test
    void aCancelledWaitShouldLeaveNothingBehind() throws Exception {
        CountDownLatch release = holdElsewhere(List.of("b"));
        CompletableFuture<Lease> waiting = registry.acquireAsync(List.of("a", "b"), WOKEN_ONLY);
        assertThat(heldKeys()).containsExactly("b");

        assertThat(waiting.cancel(true)).isTrue();
        release.countDown();

        // nothing holds the keys and no waiter is left in a queue: another caller takes them at once
        await().atMost(Threads.BOUND).until(() -> freeForAll(List.of("a", "b")));
        assertThat(heldKeys()).isEmpty();
        await().atMost(Threads.BOUND).until(() -> pending() == 0);
    }

    /**
     * A cancellation that races the release that lets the waiter in: whichever wins, nothing stays held (a lease
     * taken as the future was cancelled is closed at once).
     */
    @Test
    void aCancellationRacingTheReleaseShouldLeaveNothingHeld() throws Exception {
        for (int i = 0; i < 50; i++) {
            Lease holder = registry.acquire(List.of("k"), WOKEN_ONLY);
            CompletableFuture<Lease> waiting = registry.acquireAsync(List.of("k"), WOKEN_ONLY);
            Future<?> cancel = threads.start(() -> waiting.cancel(true));
            holder.close();
            Threads.get(cancel);
            if (!waiting.isCancelled()) {
                join(waiting).close();
            }
            await().atMost(Threads.BOUND).until(() -> freeForAll(List.of("k")));
        }
        assertThat(heldKeys()).isEmpty();
    }

    // ---- contention ------------------------------------------------------------------------------------

    /**
     * Asynchronous chains and blocking threads take the same two keys (in either order) and increment a counter that
     * nothing else guards; the count is exact and nobody is ever inside with anybody else.
     */
    @Test
    void asyncAndBlockingAcquirersShouldExcludeEachOther() throws Exception {
        int rounds = mutualExclusionRounds();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int[] counter = {0};
        Runnable critical = () -> {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            int read = counter[0];
            Thread.yield();
            counter[0] = read + 1;
            inside.decrementAndGet();
        };
        AcquireOptions options = AcquireOptions.defaults().withInfiniteRetries()
                .withRetryInterval(Duration.ofMillis(5)).withWaitTime(Threads.BOUND);
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            List<String> keys = c % 2 == 0 ? List.of("x", "y") : List.of("y", "x");
            chains.add(chain(keys, options, critical, rounds));
        }
        List<Future<Object>> blocking = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            List<String> keys = t % 2 == 0 ? List.of("y", "x") : List.of("x", "y");
            blocking.add(threads.start(() -> {
                for (int r = 0; r < rounds; r++) {
                    try (Lease lease = registry.acquire(keys, options)) {
                        critical.run();
                    }
                }
                return null;
            }));
        }
        for (CompletableFuture<Void> chain : chains) {
            Threads.get(chain, Threads.BOUND.multipliedBy(4));
        }
        for (Future<Object> thread : blocking) {
            Threads.get(thread, Threads.BOUND.multipliedBy(4));
        }

        assertThat(overlaps).hasValue(0);
        assertThat(counter[0]).isEqualTo(8 * rounds);
        assertThat(freeForAll(List.of("x", "y"))).isTrue();
    }

    /** {@code rounds} acquisitions one after the other, each running {@code critical} under its lease. */
    private CompletableFuture<Void> chain(List<String> keys, AcquireOptions options, Runnable critical, int rounds) {
        if (rounds == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return registry.acquireAsync(keys, options).thenCompose(lease -> {
            try (lease) {
                critical.run();
            }
            return chain(keys, options, critical, rounds - 1);
        });
    }

    /** SPEC "No starvation": streams of blocking one-key callers do not starve an asynchronous three-key caller. */
    @Test
    void blockingStreamsShouldNotStarveAnAsyncWaiter() throws Exception {
        Duration waited = Starvation.threeKeyWaiterAgainstStreams(threads, List.of(registry), 6,
                Duration.ofMillis(2), (node, options) -> join(node.acquireAsync(Starvation.KEYS,
                        options.withWaitTime(Duration.ofSeconds(20)))));

        assertThat(waited).isLessThan(Duration.ofSeconds(20));
    }

    // ---- ten thousand ----------------------------------------------------------------------------------

    /**
     * 10,000 acquisitions wait for one held key: the live threads grow by fewer than 100; some are cancelled and
     * some time out while they wait; after the release every other one gets the key in turn, with exact mutual
     * exclusion, and nothing is left behind (another caller then takes the key at once).
     */
    @Test
    void tenThousandPendingAcquisitionsShouldCostNoThreads() throws Exception {
        int count = 10_000;
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        Lease holder = registry.acquire(List.of("hot"), WOKEN_ONLY);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        int[] counter = {0};
        List<CompletableFuture<Void>> all = new ArrayList<>(count);
        List<CompletableFuture<Lease>> cancelled = new ArrayList<>();
        List<CompletableFuture<Lease>> timed = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            AcquireOptions options = i % 50 == 7 ? WOKEN_ONLY.withWaitTime(Duration.ofMillis(200)) : WOKEN_ONLY;
            CompletableFuture<Lease> waiting = registry.acquireAsync(List.of("hot"), options);
            if (i % 50 == 3) {
                cancelled.add(waiting);
            } else if (i % 50 == 7) {
                timed.add(waiting);
            }
            all.add(waiting.thenAccept(lease -> {
                try (lease) {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    counter[0]++;
                    taken.incrementAndGet();
                    inside.decrementAndGet();
                }
            }));
        }
        for (CompletableFuture<Lease> waiting : timed) {
            assertThatThrownBy(() -> Threads.get(waiting, Threads.BOUND.multipliedBy(4)))
                    .isInstanceOf(LockTimeoutException.class);
        }
        for (CompletableFuture<Lease> waiting : cancelled) {
            assertThat(waiting.cancel(true)).isTrue();
        }
        int threadsWaiting = ManagementFactory.getThreadMXBean().getThreadCount();
        assertThat(threadsWaiting - threadsBefore).as("threads started by 10,000 waits").isLessThan(100);
        assertThat(all).noneMatch(future -> future.isDone() && !future.isCompletedExceptionally());

        holder.close();

        int expected = count - cancelled.size() - timed.size();
        for (CompletableFuture<Void> future : all) {
            try {
                future.get(Threads.BOUND.multipliedBy(10).toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | CancellationException | CompletionException e) {
                // the cancelled and the timed-out ones
            }
        }
        assertThat(overlaps).hasValue(0);
        assertThat(taken).hasValue(expected);
        assertThat(counter[0]).isEqualTo(expected);
        assertThat(freeForAll(List.of("hot"))).isTrue();
        assertThat(heldKeys()).isEmpty();
        assertThat(pending()).as("asynchronous acquires still pending").isZero();
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore).isLessThan(100);
    }
}
