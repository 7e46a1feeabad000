package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LocksClock;
import dev.locks.spi.RemoteLockStore;
import dev.locks.spi.StoreBusyException;
import dev.locks.test.InMemoryLockServer;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine tells a remote store how long the caller can still wait (issue 27, observation 4), so that a store whose
 * calls queue for its own resources (a JDBC node's connections) never holds a caller past its wait time: what is
 * left of the wait time, {@link RemoteLockStore#ONE_ATTEMPT} for a caller that does not wait, and
 * {@link RemoteLockStore#UNBOUNDED_WAIT} without a wait time. A store that was busy until then ({@link
 * StoreBusyException}) makes the acquire end as a timeout that says so, holding nothing.
 */
class StoreWaitTest {

    private final InMemoryLockServer server = new InMemoryLockServer(LocksClock.system());
    @RegisterExtension
    final EngineNodes nodes = new EngineNodes("shared");

    @Test
    void theStoreShouldBeToldWhatIsLeftOfTheCallersWait() {
        Recording store = new Recording(server.node(true));
        EngineLockRegistry node = nodes.node(store);

        node.tryAcquire(List.of("a")).orElseThrow().close();
        node.acquire(List.of("a"), AcquireOptions.defaults().withRetries(0)).close();
        node.acquire(List.of("a"), AcquireOptions.defaults().withWaitTime(Duration.ZERO)).close();
        node.acquire(List.of("a"), AcquireOptions.defaults()).close();
        node.acquire(List.of("a"), AcquireOptions.defaults().withRetries(0).withWaitTime(Duration.ofSeconds(5)))
                .close();
        assertThat(store.acquireWaits).hasSize(5);
        List<Long> waits = List.copyOf(store.acquireWaits);
        assertThat(waits.subList(0, 3)).as("callers that do not wait").containsOnly(RemoteLockStore.ONE_ATTEMPT);
        assertThat(waits.get(3)).as("no wait time").isEqualTo(RemoteLockStore.UNBOUNDED_WAIT);
        assertThat(waits.get(4)).as("what is left of 5 s").isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(5).toNanos());

        // a key held on another node: every attempt is told what is left, down to nothing at the last one
        Lease held = nodes.node(server.node(true)).acquire(List.of("held"));
        store.acquireWaits.clear();
        Duration wait = Duration.ofMillis(300);
        assertThatThrownBy(() -> node.acquire(List.of("held"), AcquireOptions.defaults().withInfiniteRetries()
                .withRetryInterval(Duration.ofMillis(20)).withWaitTime(wait))).isInstanceOf(LockTimeoutException.class);
        held.close();
        List<Long> left = List.copyOf(store.acquireWaits);
        assertThat(left.size()).isGreaterThan(2);
        assertThat(left.get(0)).isPositive().isLessThanOrEqualTo(wait.toNanos());
        for (int i = 1; i < left.size(); i++) {
            assertThat(left.get(i)).as("attempt %d of %s", i, left).isNotNegative().isLessThan(left.get(i - 1));
        }
        assertThat(left.get(left.size() - 1)).as("the last of " + left).isLessThan(Duration.ofMillis(60).toNanos());
    }

    @Test
    void aStoreBusyUntilTheWaitRanOutShouldEndInATimeoutThatSaysSoAndHoldNothing() {
        Recording store = new Recording(server.node(true));
        EngineLockRegistry node = nodes.node(store);
        store.busy = true;

        assertThatThrownBy(() -> node.acquire(List.of("a", "b"), AcquireOptions.defaults().withInfiniteRetries()
                .withWaitTime(Duration.ofMillis(100)))).isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("every connection of the test store was busy")
                .hasMessageContaining("Raise the wait time");
        assertThat(node.tryAcquire(List.of("a"))).isEmpty();
        assertThat(node.heldCount()).isZero();
        assertThat(server.keys()).isEmpty();

        store.busy = false;
        node.acquire(List.of("a", "b"), AcquireOptions.defaults().withWaitTime(Duration.ofMillis(100))).close();
        assertThat(server.keys()).isEmpty();
    }

    @Test
    void aTicketThatABusyStoreCouldNotTakeOutInTimeShouldBeTakenOutInTheBackground() {
        Recording store = new Recording(server.node(true));
        store.placesTickets = true;
        EngineLockRegistry node = nodes.node(store);
        Lease held = nodes.node(server.node(true)).acquire(List.of("held"));
        store.busyDequeue = true;

        assertThatThrownBy(() -> node.acquire(List.of("held"), AcquireOptions.defaults().withInfiniteRetries()
                .withWaitTime(Duration.ofMillis(100)))).isInstanceOf(LockTimeoutException.class);
        assertThat(store.dequeueWaits).as("the leaving waiter's own try, with nothing left of its wait")
                .containsExactly(0L);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.dequeued.contains("held"));
        held.close();
    }

    /**
     * A node of the in-memory server that records the waits it is told, can be busy (every wait-aware call fails
     * with {@link StoreBusyException}), and can place tickets (order 1) so that a leaving waiter takes its ticket
     * out.
     */
    private static final class Recording extends DelegatingLockStore {
        final Queue<Long> acquireWaits = new ConcurrentLinkedQueue<>();
        final Queue<Long> dequeueWaits = new ConcurrentLinkedQueue<>();
        final Queue<String> dequeued = new ConcurrentLinkedQueue<>();
        volatile boolean busy;
        volatile boolean busyDequeue;
        volatile boolean placesTickets;

        Recording(RemoteLockStore node) {
            super(node);
        }

        @Override
        public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket, long waitNanos) {
            acquireWaits.add(waitNanos);
            if (busy) {
                throw new StoreBusyException("every connection of the test store was busy.");
            }
            Attempt attempt = node.tryAcquire(keys, owner, leaseMillis, ticket);
            return placesTickets && ticket != null && !attempt.isTaken() ? Attempt.heldBy(attempt.heldKey(), 1)
                    : attempt;
        }

        @Override
        public void dequeue(List<String> keys, String ticketId) {
            dequeued.addAll(keys);
        }

        @Override
        public void dequeue(List<String> keys, String ticketId, long waitNanos) {
            dequeueWaits.add(waitNanos);
            if (busyDequeue) {
                throw new StoreBusyException("every connection of the test store was busy.");
            }
            dequeue(keys, ticketId);
        }
    }
}
