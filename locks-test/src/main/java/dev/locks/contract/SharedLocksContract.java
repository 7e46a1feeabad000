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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What shared (read) locks and counted locks (permits) promise on every backend (SPEC section 13): many shared
 * holders and no exclusive one meanwhile, writers not starved by readers (nor passed by a later reader), an
 * upgrade refused at once, re-entry of an exclusive holder, permits that each are a lease (freed on close and
 * by expiry), a mismatched number of permits refused naming both, all-or-nothing over several keys, and a pair
 * of unguarded fields that readers never see half written. A backend subclasses this and provides
 * {@link #newRegistry}.
 */
public abstract class SharedLocksContract {

    /** Waits that only a wake-up (or an expiry) ends within {@link Threads#BOUND}. */
    protected static final AcquireOptions WAITING = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMillis(200)).withWaitTime(Threads.BOUND)
            .withLockTimeout(Duration.ofMinutes(5));

    protected static final AcquireOptions SHARED = WAITING.shared();

    protected LockRegistry registry;
    protected Threads threads;

    /** A new, empty registry of the backend under test with these default options. */
    protected abstract LockRegistry newRegistry(AcquireOptions defaults);

    @BeforeEach
    void setUpShared() {
        registry = newRegistry(AcquireOptions.defaults());
        threads = new Threads();
    }

    @AfterEach
    void tearDownShared() throws Exception {
        threads.close();
        if (registry instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Test
    void eightSharedHoldersShouldHoldAtOnceWhileAnExclusiveAcquireIsRefused() throws Exception {
        CyclicBarrier allHold = new CyclicBarrier(9);
        CountDownLatch release = new CountDownLatch(1);
        List<Future<Long>> readers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            readers.add(threads.start(() -> {
                try (Lease lease = registry.acquire(List.of("config"), SHARED)) {
                    allHold.await(Threads.BOUND.toSeconds(), TimeUnit.SECONDS); // all 8 hold it at once
                    release.await();
                    return lease.fencingToken();
                }
            }));
        }
        allHold.await(Threads.BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(registry.tryAcquire(List.of("config"))).isEmpty();
        List<HeldLock> held = registry.heldLocks().stream().filter(lock -> lock.key().equals("config")).toList();
        assertThat(held).hasSize(8); // one row per shared holder
        assertThat(held).extracting(HeldLock::fencingToken).doesNotHaveDuplicates();
        release.countDown();
        Set<Long> tokens = new HashSet<>();
        for (Future<Long> reader : readers) {
            tokens.add(Threads.get(reader));
        }
        assertThat(tokens).hasSize(8); // each lease its own token
        try (Lease writer = registry.tryAcquire(List.of("config")).orElseThrow()) {
            assertThat(writer.fencingToken())
                    .isGreaterThan(tokens.stream().mapToLong(Long::longValue).max().orElseThrow());
        }
    }

    @Test
    void anExclusiveHolderShouldKeepSharedAcquirersOut() throws Exception {
        try (Lease writer = registry.acquire(List.of("k"))) {
            assertThat(threads.run(() -> registry.tryAcquire(List.of("k"), SHARED))).isEmpty();
            // its own thread may take it shared again (re-entry)
            try (Lease again = registry.tryAcquire(List.of("k"), SHARED).orElseThrow()) {
                assertThat(again.isHeld()).isTrue();
            }
            assertThat(writer.isHeld()).isTrue();
            assertThat(threads.run(() -> registry.tryAcquire(List.of("k"), SHARED))).isEmpty();
        }
        assertThat(threads.run(() -> registry.tryAcquire(List.of("k"), SHARED).map(lease -> {
            lease.close();
            return true;
        }))).contains(true);
    }

    @Test
    void aWaitingWriterShouldNotBePassedByALaterReaderNorStarvedByAStreamOfReaders() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        List<Future<Void>> stream = new ArrayList<>();
        for (int i = 0; i < 4; i++) { // overlapping readers: the key is never free of readers on its own
            stream.add(threads.start(() -> {
                while (!stop.get()) {
                    try (Lease lease = registry.acquire(List.of("k"), SHARED)) {
                        reads.incrementAndGet();
                        Thread.sleep(2);
                    }
                }
                return null;
            }));
        }
        await().atMost(Threads.BOUND).until(() -> reads.get() > 20);
        CountDownLatch writerBlocked = new CountDownLatch(1);
        AcquireOptions writerOptions = WAITING.withRetryInterval(attempt -> {
            writerBlocked.countDown();
            return Duration.ofMillis(200);
        });
        CountDownLatch writerHolds = new CountDownLatch(1);
        CountDownLatch writerMayGo = new CountDownLatch(1);
        // one reader surely in when the writer comes (between the stream's reads the key can be free for a moment,
        // and a writer that found it so never waited: seen once in a clean-clone run on Redis)
        Lease anchor = registry.acquire(List.of("k"), SHARED);
        Future<Long> writer = threads.start(() -> {
            try (Lease lease = registry.acquire(List.of("k"), writerOptions)) {
                writerHolds.countDown();
                writerMayGo.await();
                return lease.fencingToken();
            }
        });
        assertThat(writerBlocked.await(Threads.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue(); // it waits for them
        anchor.close();
        // the stream of readers does not starve it: it gets the key while they keep trying
        assertThat(writerHolds.await(Threads.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(registry.heldLocks().stream().filter(lock -> lock.key().equals("k"))).hasSize(1); // no reader in
        writerMayGo.countDown();
        Threads.get(writer);
        stop.set(true);
        for (Future<Void> reader : stream) {
            Threads.get(reader);
        }

        // a reader arriving after a waiting writer does not pass it
        Lease first = registry.acquire(List.of("q"), SHARED);
        CountDownLatch blocked = new CountDownLatch(1);
        AtomicReference<Thread> waitingWriter = new AtomicReference<>();
        Future<Lease> second = threads.start(() -> {
            waitingWriter.set(Thread.currentThread());
            return registry.acquire(List.of("q"), WAITING.withRetryInterval(attempt -> {
                blocked.countDown();
                return Duration.ofMillis(200);
            }));
        });
        assertThat(blocked.await(Threads.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitParked(waitingWriter.get());
        assertThat(threads.run(() -> registry.tryAcquire(List.of("q"), SHARED))).isEmpty();
        AtomicBoolean laterReaderHeld = new AtomicBoolean();
        AtomicBoolean writerHeldWhenReaderCame = new AtomicBoolean();
        CountDownLatch readerBlocked = new CountDownLatch(1);
        AtomicReference<Thread> readerThread = new AtomicReference<>();
        Future<Void> laterReader = threads.start(() -> {
            readerThread.set(Thread.currentThread());
            try (Lease lease = registry.acquire(List.of("q"), SHARED.withRetryInterval(attempt -> {
                readerBlocked.countDown();
                return Duration.ofMillis(200);
            }))) {
                writerHeldWhenReaderCame.set(second.isDone());
                laterReaderHeld.set(true);
            }
            return null;
        });
        assertThat(readerBlocked.await(Threads.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue(); // though readers hold it
        awaitParked(readerThread.get());
        first.close();
        try (Lease writerLease = Threads.get(second)) {
            assertThat(laterReaderHeld).isFalse(); // the writer went first
            assertThat(writerLease.isHeld()).isTrue();
        }
        Threads.get(laterReader);
        assertThat(writerHeldWhenReaderCame).isTrue();
    }

    @Test
    void anUpgradeShouldBeRefusedAtOnce() throws Exception {
        try (Lease shared = registry.acquire(List.of("k"), SHARED)) {
            // infinite retries: only the refusal can end these calls
            assertThatThrownBy(() -> registry.acquire(List.of("k"), WAITING.withoutWaitTime()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'k'")
                    .hasMessageContaining("shared");
            assertThatThrownBy(() -> registry.tryAcquire(List.of("k")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'k'");
            assertThatThrownBy(() -> registry.acquire(List.of("a", "k"), WAITING))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(registry.tryAcquire(List.of("a"))).map(lease -> {
                lease.close();
                return true;
            }).contains(true); // nothing of the refused call stayed held
            assertThat(shared.isHeld()).isTrue();
            // another thread is simply blocked
            assertThat(threads.run(() -> registry.tryAcquire(List.of("k")))).isEmpty();
        }
        try (Lease writer = registry.tryAcquire(List.of("k")).orElseThrow()) {
            assertThat(writer.isHeld()).isTrue();
        }
    }

    @Test
    void threePermitsShouldBeHeldAtOnceAndTheFourthRefusedUntilOneIsClosed() throws Exception {
        AcquireOptions three = WAITING.withPermits(3);
        List<Lease> permits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            permits.add(threads.run(() -> registry.tryAcquire(List.of("tenant:7"), three).orElseThrow()));
        }
        assertThat(permits).extracting(Lease::fencingToken).doesNotHaveDuplicates();
        assertThat(registry.heldLocks().stream().filter(lock -> lock.key().equals("tenant:7"))).hasSize(3);
        assertThat(registry.tryAcquire(List.of("tenant:7"), three)).isEmpty();
        assertThatThrownBy(() -> registry.acquire(List.of("tenant:7"), three.withRetries(0).withoutWaitTime()))
                .isInstanceOf(LockTimeoutException.class).hasMessageContaining("'tenant:7'");
        Future<Lease> fourth = threads.start(() -> registry.acquire(List.of("tenant:7"), three));
        permits.get(1).close();
        try (Lease lease = Threads.get(fourth)) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(registry.tryAcquire(List.of("tenant:7"), three)).isEmpty();
        }
        permits.get(0).close();
        permits.get(2).close();
        assertThat(registry.heldLocks().stream().filter(lock -> lock.key().equals("tenant:7"))).isEmpty();
    }

    @Test
    void aPermitNeverClosedShouldFreeItselfAfterItsLockTimeout() throws Exception {
        AcquireOptions three = WAITING.withPermits(3);
        Lease crashed = registry.tryAcquire(List.of("tenant:9"), three.withLockTimeout(Duration.ofMillis(300)))
                .orElseThrow(); // its holder "crashes": it is never closed
        Lease second = registry.tryAcquire(List.of("tenant:9"), three).orElseThrow();
        Lease third = registry.tryAcquire(List.of("tenant:9"), three).orElseThrow();
        assertThat(registry.tryAcquire(List.of("tenant:9"), three)).isEmpty();
        Lease fourth = registry.acquire(List.of("tenant:9"), three); // waits for the crashed permit's expiry
        assertThat(crashed.isHeld()).isFalse();
        assertThat(fourth.fencingToken()).isGreaterThan(crashed.fencingToken());
        assertThat(registry.heldLocks().stream().filter(lock -> lock.key().equals("tenant:9"))).hasSize(3);
        for (Lease lease : List.of(second, third, fourth, crashed)) {
            lease.close();
        }
        assertThat(registry.heldLocks().stream().filter(lock -> lock.key().equals("tenant:9"))).isEmpty();
    }

    @Test
    void aMismatchedNumberOfPermitsShouldBeRefusedNamingBoth() throws Exception {
        try (Lease held = registry.acquire(List.of("tenant:1"), WAITING.withPermits(3))) {
            assertThatThrownBy(() -> registry.acquire(List.of("tenant:1"), WAITING.withPermits(5)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5").hasMessageContaining("3");
            assertThatThrownBy(() -> registry.tryAcquire(List.of("tenant:1"), WAITING.withPermits(2)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2").hasMessageContaining("3");
            assertThatThrownBy(() -> threads.run(() -> registry.tryAcquire(List.of("tenant:1"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 permit")
                    .hasMessageContaining("3 permits");
            assertThat(held.isHeld()).isTrue();
        }
        try (Lease exclusive = registry.acquire(List.of("tenant:1"))) {
            AcquireOptions four = WAITING.withPermits(4);
            assertThatThrownBy(() -> threads.run(() -> registry.tryAcquire(List.of("tenant:1"), four)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4 permits")
                    .hasMessageContaining("1 permit");
            assertThat(exclusive.isHeld()).isTrue();
        }
    }

    @Test
    void sharedAcquiresOfSeveralKeysShouldBeAllOrNothing() throws Exception {
        try (Lease writer = registry.acquire(List.of("b"))) {
            assertThat(threads.run(() -> registry.tryAcquire(List.of("c", "a", "b"), SHARED))).isEmpty();
            assertThat(registry.heldLocks()).extracting(HeldLock::key).containsExactly("b"); // a and c given back
        }
        try (Lease readers = registry.tryAcquire(List.of("c", "a", "b"), SHARED).orElseThrow()) {
            assertThat(readers.keys()).containsExactly("a", "b", "c");
            try (Lease more = threads.run(() -> registry.tryAcquire(List.of("a", "c"), SHARED).orElseThrow())) {
                assertThat(registry.heldLocks()).extracting(HeldLock::key).containsExactly("a", "a", "b", "c", "c");
                assertThat(more.fencingToken()).isNotEqualTo(readers.fencingToken());
            }
            assertThat(threads.run(() -> registry.tryAcquire(List.of("a")))).isEmpty();
        }
    }

    @Test
    void asynchronousSharedAcquiresShouldHoldTogetherAndWaitForAWriter() throws Exception {
        Lease writer = registry.acquire(List.of("k"));
        CompletableFuture<Lease> first = registry.acquireAsync(List.of("k"), SHARED);
        CompletableFuture<Lease> second = registry.acquireAsync(List.of("k"), SHARED);
        assertThat(first).isNotDone();
        writer.close();
        try (Lease one = first.get(Threads.BOUND.toSeconds(), TimeUnit.SECONDS);
                Lease two = second.get(Threads.BOUND.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(one.isHeld()).isTrue();
            assertThat(two.isHeld()).isTrue();
            assertThat(registry.tryAcquire(List.of("k"))).isEmpty();
        }
        assertThat(registry.tryAcquire(List.of("k"))).map(lease -> {
            lease.close();
            return true;
        }).contains(true);
    }

    /** The pair that writers change together, unguarded but for the lock. */
    private long left;
    private long right;

    @Test
    void readersShouldNeverSeeAHalfWrittenPair() throws Exception {
        int rounds = rounds();
        AtomicInteger torn = new AtomicInteger();
        List<Future<Void>> tasks = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            tasks.add(threads.start(() -> {
                for (int i = 0; i < rounds; i++) {
                    try (Lease lease = registry.acquire(List.of("pair"), WAITING)) {
                        long next = left + 1;
                        left = next;
                        Thread.yield();
                        right = next;
                    }
                }
                return null;
            }));
        }
        for (int r = 0; r < 4; r++) {
            tasks.add(threads.start(() -> {
                for (int i = 0; i < rounds; i++) {
                    try (Lease lease = registry.acquire(List.of("pair"), SHARED)) {
                        long seenLeft = left;
                        Thread.yield();
                        if (right != seenLeft) {
                            torn.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<Void> task : tasks) {
            Threads.get(task);
        }
        assertThat(left).isEqualTo(2L * rounds).isEqualTo(right);
        assertThat(torn).hasValue(0);
    }

    /** How many rounds each reader and writer of {@link #readersShouldNeverSeeAHalfWrittenPair} makes. */
    protected int rounds() {
        return 500;
    }

    /**
     * For a backend whose store does not hold shared and counted locks yet: every way of asking for them is refused
     * with an {@link UnsupportedOperationException} naming the backend, and nothing stays held.
     */
    public static void assertRefusedBy(LockRegistry registry) throws Exception {
        for (AcquireOptions options
                : List.of(AcquireOptions.defaults().shared(), AcquireOptions.defaults().withPermits(3))) {
            String backend = "the " + registry.backend() + " lock registry";
            assertThatThrownBy(() -> registry.acquire(List.of("k"), options))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining(backend);
            assertThatThrownBy(() -> registry.tryAcquire(List.of("k", "l"), options))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining(backend);
            CompletableFuture<Lease> async = registry.acquireAsync(List.of("k"), options);
            assertThatThrownBy(() -> async.get(Threads.BOUND.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnsupportedOperationException.class).hasMessageContaining(backend);
        }
        assertThat(registry.heldLocks()).isEmpty();
        try (Lease exclusive = registry.tryAcquire(List.of("k", "l")).orElseThrow()) {
            assertThat(exclusive.isHeld()).isTrue();
        }
    }

    /** Waits until {@code thread} parks (it enlisted as a waiter before). */
    protected static void awaitParked(Thread thread) {
        await().atMost(Threads.BOUND).until(() -> thread.getState() == Thread.State.TIMED_WAITING
                || thread.getState() == Thread.State.WAITING);
    }
}
