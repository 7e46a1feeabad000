package dev.locks.contract;

import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.computation;
import static dev.locks.contract.ComputeCacheCallers.failure;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeFailedException;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTimeoutException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes of a cache across nodes, in one JVM, on one store, in real time: what crosses from one node to the
 * other (the computer's turn, its result, its failure) and what stays on each (its waiters, its view of the
 * computation). A distributed backend subclasses it with two nodes of its own.
 */
public abstract class ComputeNodesContract {

    protected static final Duration TTL = Duration.ofMinutes(1);
    protected static final Duration COMPUTE_TIMEOUT = Duration.ofMillis(600);
    protected static final ComputeOptions DEFAULTS =
            ComputeOptions.defaults().withTtl(TTL).withComputeTimeout(COMPUTE_TIMEOUT);

    protected final ComputeCacheCallers callers = new ComputeCacheCallers();
    protected ComputeCache a;
    protected ComputeCache b;

    /**
     * Node A ({@code first}) or node B of one store, with these defaults, on the system clock: each its own
     * node (its own connection, subscription and flights), ready to hear the other's notices when this returns.
     */
    protected abstract ComputeCache newNode(ComputeOptions defaults, boolean first);

    /** Whether a caller of {@code key} on {@code node} would now join a computation in flight there. */
    protected abstract boolean joinsComputationOf(ComputeCache node, String key);

    @BeforeEach
    void startNodes() {
        a = newNode(DEFAULTS, true);
        b = newNode(DEFAULTS, false);
    }

    @AfterEach
    void stopNodes() throws Exception {
        callers.close();
        assertThat(a.computations()).isEmpty();
        assertThat(b.computations()).isEmpty();
        for (ComputeCache node : List.of(a, b)) {
            if (node instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }

    @Test
    void stalledComputerShouldBeReplacedByTheOldestWaiterOfAnotherNodeAndItsLateResultDropped() {
        ComputeOutcome.Compute alice = (ComputeOutcome.Compute) a.begin("k", TTL, "alice's hint");
        long began = System.nanoTime();
        ComputeCacheStall<String> bob = ComputeCacheStall.returning("bob");
        Future<String> oldest = callers.start("bob", () -> b.fetchOrCompute("k", TTL, bob));
        awaitWaiters(b, "k", 1);
        Future<String> younger = callers.start("carol", () -> b.fetchOrCompute("k", TTL, () -> "carol"));
        awaitWaiters(b, "k", 2);
        assertThat(computation(b, "k")).map(Computation::computer).hasValueSatisfying(computer -> assertThat(computer)
                .as("node B shows node A's computer").startsWith(Thread.currentThread().getName() + " @ "));

        bob.awaitEntered();

        assertThat(Duration.ofNanos(System.nanoTime() - began)).as("not before the compute lock expired")
                .isGreaterThanOrEqualTo(COMPUTE_TIMEOUT.minusMillis(50));
        assertThat(computation(b, "k")).hasValueSatisfying(computation -> {
            assertThat(computation.computer()).startsWith("bob @ ");
            assertThat(computation.waiters()).isEqualTo(1);
        });
        bob.release();
        assertThat(result(oldest)).isEqualTo("bob");
        assertThat(result(younger)).isEqualTo("bob");
        assertThat(a.complete(alice.ticket(), "alice", null)).as("a demoted computer's late result").isFalse();
        assertThat(a.fetchOrCompute("k", TTL, () -> "other")).isEqualTo("bob");
        assertThat(b.fetchOrCompute("k", TTL, () -> "other")).isEqualTo("bob");
    }

    @Test
    void invalidateOnAnotherNodeShouldLeaveTheOldValueUnstoredButAnswerTheWaitersOfEveryNode() {
        ComputeCacheStall<String> readsOldRow = ComputeCacheStall.returning("old");
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, readsOldRow));
        readsOldRow.awaitEntered();
        Future<String> hereBefore = callers.start("bob", () -> a.fetchOrCompute("k", TTL, () -> "bob"));
        awaitWaiters(a, "k", 1);
        Future<String> thereBefore = callers.start("carol", () -> b.fetchOrCompute("k", TTL, () -> "carol"));
        awaitWaiters(b, "k", 1);

        b.invalidate("k");

        assertThat(b.fetchOrCompute("k", TTL, () -> "new")).as("a call after invalidate").isEqualTo("new");
        assertThat(a.fetchOrCompute("k", TTL, () -> "newer")).isEqualTo("new");
        readsOldRow.release();
        assertThat(result(computer)).isEqualTo("old");
        assertThat(result(hereBefore)).isEqualTo("old");
        assertThat(result(thereBefore)).as("a waiter on another node that joined before").isEqualTo("old");
        assertThat(a.fetchOrCompute("k", TTL, () -> "newest")).isEqualTo("new");
        assertThat(b.fetchOrCompute("k", TTL, () -> "newest")).isEqualTo("new");
    }

    @Test
    void invalidationNoticeShouldMakeTheComputingNodesLaterCallersComputeAnew() {
        ComputeCacheStall<String> readsOldRow = ComputeCacheStall.returning("old");
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, readsOldRow));
        readsOldRow.awaitEntered();
        assertThat(joinsComputationOf(a, "k")).isTrue();

        b.invalidate("k");

        await().atMost(ComputeCacheCallers.PATIENCE).until(() -> !joinsComputationOf(a, "k"));
        ComputeCacheStall<String> readsNewRow = ComputeCacheStall.returning("new");
        Future<String> later = callers.start("carol", () -> a.fetchOrCompute("k", TTL, readsNewRow));
        readsNewRow.awaitEntered().release(); // carol computes: she did not join alice's computation
        assertThat(result(later)).isEqualTo("new");
        readsOldRow.release();
        assertThat(result(computer)).isEqualTo("old");
        assertThat(b.fetchOrCompute("k", TTL, () -> "newer")).isEqualTo("new");
    }

    @Test
    void promotedComputerOfAnotherNodeShouldGetTheFirstHintAndTheFirstCompletionWins() {
        ComputeOutcome.Compute alice = (ComputeOutcome.Compute) a.begin("k", TTL, "alice's hint");
        Future<ComputeOutcome> bob = callers.start("bob", () -> b.begin("k", TTL, "bob's hint"));

        ComputeOutcome.Compute promoted = (ComputeOutcome.Compute) result(bob);

        assertThat(promoted.hint()).isEqualTo("alice's hint");
        assertThat(a.fail(alice.ticket(), new IllegalStateException("late"))).as("no longer the computer").isFalse();
        assertThat(a.complete(alice.ticket(), "alice", null)).as("but the first completion of the miss").isTrue();
        assertThat(b.complete(promoted.ticket(), "bob", null)).isFalse();
        assertThat(b.fail(promoted.ticket(), new IllegalStateException("late"))).isFalse();
        assertThat(b.begin("k", TTL, null)).isEqualTo(new ComputeOutcome.Hit("alice"));
    }

    @Test
    void failureShouldReachItsOwnNodeAsItselfAndOtherNodesByClassNameAndMessage() {
        IOException boom = new IOException("boom");
        ComputeCacheStall<String> failing = ComputeCacheStall.throwing(boom);
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, failing));
        failing.awaitEntered();
        Future<String> sameNode = callers.start("dave", () -> a.fetchOrCompute("k", TTL, () -> "dave"));
        awaitWaiters(a, "k", 1);
        List<Future<String>> otherNode = new ArrayList<>();
        for (String name : List.of("bob", "carol")) {
            otherNode.add(callers.start(name, () -> b.fetchOrCompute("k", TTL, () -> name)));
            awaitWaiters(b, "k", otherNode.size());
        }

        failing.release();

        assertThat(failure(computer)).isSameAs(boom);
        assertThat(failure(sameNode)).isSameAs(boom);
        Throwable remote = failure(otherNode.get(0));
        assertThat(remote).isInstanceOfSatisfying(ComputeFailedException.class, failed -> {
            assertThat(failed.key()).isEqualTo("k");
            assertThat(failed.originalClassName()).isEqualTo("java.io.IOException");
            assertThat(failed.originalMessage()).isEqualTo("boom");
        });
        assertThat(failure(otherNode.get(1))).as("one flight on node B: the same exception").isSameAs(remote);
        assertThat(b.fetchOrCompute("k", TTL, () -> "again")).as("nothing stored").isEqualTo("again");
    }

    @Test
    void waiterGivingUpShouldPassItsTurnOnItsNodeToTheNextWaiter() {
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        Future<String> computer = callers.start("alice",
                () -> a.fetchOrCompute("k", DEFAULTS.withComputeTimeout(Duration.ofMinutes(1)), alice));
        alice.awaitEntered();
        // long enough that carol and dave surely join before bob gives up, even on a loaded machine
        Duration waitTime = Duration.ofSeconds(3);
        ComputeOptions impatiently = DEFAULTS.withWaitTime(waitTime).withComputeTimeout(Duration.ofMinutes(1));
        Future<String> impatient = callers.start("bob", () -> b.fetchOrCompute("k", impatiently, () -> "bob"));
        awaitWaiters(b, "k", 1);
        AtomicReference<Thread> carol = new AtomicReference<>();
        Future<String> interrupted = callers.start("carol", () -> {
            carol.set(Thread.currentThread());
            return b.fetchOrCompute("k", TTL, () -> "carol");
        });
        awaitWaiters(b, "k", 2);
        Future<String> patient = callers.start("dave", () -> b.fetchOrCompute("k", TTL, () -> "dave"));
        awaitWaiters(b, "k", 3);

        assertThat(failure(impatient)).isInstanceOf(ComputeTimeoutException.class);
        awaitWaiters(b, "k", 2);
        carol.get().interrupt(); // carol now waits for node A in bob's place: she passes the turn to dave
        assertThat(failure(interrupted)).isInstanceOf(CancellationException.class);
        awaitWaiters(b, "k", 1);
        alice.release();

        assertThat(result(computer)).isEqualTo("alice");
        assertThat(result(patient)).isEqualTo("alice");
    }
}
