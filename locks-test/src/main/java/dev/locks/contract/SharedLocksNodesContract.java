package dev.locks.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC 13 across nodes of one distributed backend: what the one-registry {@link SharedLocksContract} cannot show.
 * Holders and permits counted across nodes, a mismatched number of permits refused from another node, a writer
 * waiting on one node not passed by a later reader of the other, the watchdog's renewals in the store, a closing
 * node giving its places back, and nothing left behind in the store. A backend subclasses this and provides
 * {@link #newNode} (each node on its own connections) and {@link #assertNothingLeftBehind}.
 */
public abstract class SharedLocksNodesContract {

    /** Waits that only a wake-up ends in time: the retry interval is longer than the test takes. */
    protected static final AcquireOptions WAITING = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofSeconds(5)).withWaitTime(Threads.BOUND);

    private final List<LockRegistry> nodes = new ArrayList<>();
    protected final Threads threads = new Threads();

    /** A new node (registry) of the backend on its own connections, with or without the watchdog. */
    protected abstract LockRegistry newNode(boolean watchdog);

    /** Asserts that the store holds no lock, holder or ticket any more. */
    protected abstract void assertNothingLeftBehind() throws Exception;

    @AfterEach
    void closeNodes() throws Exception {
        threads.close();
        for (LockRegistry node : nodes) {
            if (node instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }

    private LockRegistry node(boolean watchdog) {
        LockRegistry node = newNode(watchdog);
        nodes.add(node);
        return node;
    }

    @Test
    void readersOnTwoNodesShouldHoldAtOnceAndKeepAWriterOfEitherOut() throws Exception {
        LockRegistry a = node(false);
        LockRegistry b = node(false);
        Lease onA = a.tryAcquire(List.of("config"), AcquireOptions.defaults().shared()).orElseThrow();
        Lease onB = b.tryAcquire(List.of("config"), AcquireOptions.defaults().shared()).orElseThrow();
        assertThat(onB.fencingToken()).isGreaterThan(onA.fencingToken());
        assertThat(threads.run(() -> b.tryAcquire(List.of("config")))).isEmpty(); // not an upgrade: another thread
        assertThat(a.heldLocks()).extracting(HeldLock::key).containsExactly("config", "config");
        assertThat(b.heldLocks()).extracting(HeldLock::fencingToken)
                .containsExactlyInAnyOrder(onA.fencingToken(), onB.fencingToken());
        assertThat(a.heldLocks()).extracting(HeldLock::owner).allMatch(owner -> owner.contains("(shared)"));
        assertThat(b.heldLocks(1)).as("one row per holder, the limit counting rows").hasSize(1);
        onA.close();
        assertThat(a.tryAcquire(List.of("config"))).isEmpty();
        onB.close();
        Lease writer = b.tryAcquire(List.of("config")).orElseThrow();
        assertThat(writer.fencingToken()).isGreaterThan(onB.fencingToken());
        assertThat(a.tryAcquire(List.of("config"), AcquireOptions.defaults().shared())).isEmpty();
        writer.close();
        assertNothingLeftBehind();
    }

    @Test
    void permitsShouldBeCountedAcrossNodesAndAFreedOneGoToTheWaiterOfTheOtherNode() throws Exception {
        LockRegistry a = node(false);
        LockRegistry b = node(false);
        AcquireOptions three = WAITING.withPermits(3);
        Lease first = a.acquire(List.of("tenant:7"), three);
        Lease second = threads.run(() -> a.acquire(List.of("tenant:7"), three));
        Lease third = b.acquire(List.of("tenant:7"), three);
        assertThat(b.tryAcquire(List.of("tenant:7"), three)).as("the 4th, on either node").isEmpty();
        assertThat(a.tryAcquire(List.of("tenant:7"), three)).isEmpty();
        AtomicReference<Thread> waiting = new AtomicReference<>();
        Future<Lease> fourth = threads.start(() -> {
            waiting.set(Thread.currentThread());
            return b.acquire(List.of("tenant:7"), three);
        });
        awaitParked(waiting);

        second.close(); // the retry interval is 5 s: the release notice wakes it
        try (Lease lease = Threads.get(fourth)) {
            assertThat(lease.fencingToken()).isGreaterThan(third.fencingToken());
            assertThat(a.heldLocks()).hasSize(3);
        }
        first.close();
        third.close();
        assertNothingLeftBehind();
    }

    @Test
    void anotherNumberOfPermitsFromAnotherNodeShouldBeRefusedNamingBoth() throws Exception {
        LockRegistry a = node(false);
        LockRegistry b = node(false);
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
        assertNothingLeftBehind(); // no ticket placed by the refused calls
    }

    @Test
    void aWriterWaitingOnOneNodeShouldNotBePassedByALaterReaderOfTheOther() throws Exception {
        LockRegistry a = node(false);
        LockRegistry b = node(false);
        Lease reader = a.acquire(List.of("q"), WAITING.shared());
        AtomicReference<Thread> waiting = new AtomicReference<>();
        Future<Lease> writer = threads.start(() -> {
            waiting.set(Thread.currentThread());
            return b.acquire(List.of("q"), WAITING);
        });
        awaitParked(waiting);

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
        LockRegistry a = node(true);
        LockRegistry b = node(false);
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
        assertNothingLeftBehind();
    }

    @Test
    void aClosingNodeShouldGiveBackItsPlacesAtOnce() throws Exception {
        LockRegistry a = node(false);
        LockRegistry b = node(false);
        a.acquire(List.of("tenant:2"), WAITING.withPermits(2));
        a.acquire(List.of("tenant:2"), WAITING.withPermits(2));
        assertThat(b.tryAcquire(List.of("tenant:2"), WAITING.withPermits(2))).isEmpty();

        ((AutoCloseable) a).close();
        nodes.remove(a);

        try (Lease lease = b.tryAcquire(List.of("tenant:2"), WAITING.withPermits(2)).orElseThrow()) {
            assertThat(b.heldLocks()).hasSize(1);
        }
    }

    @Test
    void aDeadThreadsPermitShouldBeFreedForEveryNodeByTheSweepOfItsNode() throws Exception {
        LockRegistry a = node(false);
        LockRegistry b = node(false);
        AcquireOptions two = WAITING.withPermits(2);
        Threads.runAndDie(() -> a.tryAcquire(List.of("tenant:3"), two).orElseThrow()); // never closed
        Lease other = b.acquire(List.of("tenant:3"), two);
        assertThat(b.tryAcquire(List.of("tenant:3"), two)).as("the dead thread's permit counts until swept")
                .isEmpty();

        assertThat(a.sweep()).isEqualTo(1);

        try (Lease freed = b.tryAcquire(List.of("tenant:3"), two).orElseThrow()) {
            assertThat(b.heldLocks()).hasSize(2);
        }
        other.close();
        assertNothingLeftBehind();
    }

    /** Waits until the thread in {@code thread} parks: it waits, its ticket placed. */
    private static void awaitParked(AtomicReference<Thread> thread) {
        await().atMost(Threads.BOUND).until(() -> thread.get() != null);
        SharedLocksContract.awaitParked(thread.get());
    }
}
