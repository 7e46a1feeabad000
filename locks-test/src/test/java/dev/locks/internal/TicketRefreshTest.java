package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LocksClock;
import dev.locks.spi.RemoteLockStore;
import dev.locks.test.InMemoryLockServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SPEC 8 (issue 24): the backend work per acquisition stays bounded whatever the number of waiters, including
 * what keeping their places costs while they wait. Each waiter's ticket in the store lasts a few seconds unless
 * refreshed; a store that refreshes many tickets in one call ({@link RemoteLockStore#refreshesTickets}) gets all of
 * a node's due tickets at once, so a node's refreshes do not grow with its waiters (1,000 waiters on MariaDB spent
 * 55 of their 70 statements per acquisition on one refresh each per second); a store that does not gets each
 * waiter's own {@code enqueue}, as before.
 */
class TicketRefreshTest {

    private static final int WAITERS = 60;
    /** Long enough for every ticket to be due twice ({@link RemoteLocks#TICKET_REFRESH_NANOS}: 1 s). */
    private static final Duration HOLD = Duration.ofMillis(2_600);
    private static final AcquireOptions WOKEN_ONLY = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMinutes(5)).withWaitTime(Duration.ofMinutes(1));

    private final InMemoryLockServer server = new InMemoryLockServer(LocksClock.system());
    @RegisterExtension
    final EngineNodes nodes = new EngineNodes("queued");

    @Test
    void aStoreThatRefreshesInBulkShouldGetEveryDueTicketOfTheNodeInAFewCalls() throws Exception {
        Queues store = new Queues(server.node(true), true);
        int served = waitBehindAHolder(store);

        assertThat(served).isEqualTo(2 * WAITERS);
        assertThat(store.refreshedTickets.get()).as("tickets refreshed while held %s", HOLD)
                .isGreaterThanOrEqualTo(2 * WAITERS);
        assertThat(store.refreshCalls.get()).as("bulk refreshes, %d waiters", 2 * WAITERS).isBetween(1, 12);
        // a few waiters blocked in this node's memory, woken a second or more after their last placement, place
        // their tickets again themselves (a bulk refresh never does): per attempt, not per second of waiting
        assertThat(store.refreshingEnqueues.get()).as("waiters' own refreshes").isLessThan(WAITERS / 2);
        assertThat(store.liveTickets).as("tickets left behind").isEmpty();
    }

    @Test
    void aStoreThatDoesNotShouldBeRefreshedByEachWaiterAsBefore() throws Exception {
        Queues store = new Queues(server.node(true), false);
        int served = waitBehindAHolder(store);

        assertThat(served).isEqualTo(2 * WAITERS);
        assertThat(store.refreshCalls.get()).isZero();
        assertThat(store.refreshingEnqueues.get()).as("waiters' own refreshes").isGreaterThanOrEqualTo(2 * WAITERS);
    }

    /** {@link #WAITERS} threads and as many asynchronous acquires wait {@link #HOLD} for a key; then it is free. */
    private int waitBehindAHolder(Queues store) throws Exception {
        EngineLockRegistry waiting = nodes.node(store);
        Lease held = nodes.node(server.node(true)).acquire(List.of("k"));
        AtomicInteger served = new AtomicInteger();
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            all.add(CompletableFuture.runAsync(() -> {
                try (Lease lease = waiting.acquire(List.of("k"), WOKEN_ONLY)) {
                    served.incrementAndGet();
                }
            }, runnable -> new Thread(runnable, "waiter").start()));
            all.add(waiting.acquireAsync(List.of("k"), WOKEN_ONLY).thenAccept(lease -> {
                try (lease) {
                    served.incrementAndGet();
                }
            }));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> store.liveTickets.size() == 2 * WAITERS);
        Thread.sleep(HOLD.toMillis());
        held.close();
        CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        return served.get();
    }

    /**
     * A node of the in-memory server with queues enough for these tests: a blocked acquire places its ticket
     * (order 1), {@code enqueue} refreshes it, {@code dequeue} and a successful acquire take it out, and, when
     * {@code bulk}, {@code refreshTickets} extends those still there, counted.
     */
    private static final class Queues extends DelegatingLockStore {
        final boolean bulk;
        final Set<String> liveTickets = ConcurrentHashMap.newKeySet();
        final AtomicInteger refreshCalls = new AtomicInteger();
        final AtomicInteger refreshedTickets = new AtomicInteger();
        final AtomicInteger refreshingEnqueues = new AtomicInteger();

        Queues(RemoteLockStore node, boolean bulk) {
            super(node);
            this.bulk = bulk;
        }

        @Override
        public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket) {
            Attempt attempt = node.tryAcquire(keys, owner, leaseMillis, ticket);
            if (ticket == null) {
                return attempt;
            }
            if (attempt.isTaken()) {
                liveTickets.remove(ticket.id());
                return attempt;
            }
            liveTickets.add(ticket.id());
            return Attempt.heldBy(attempt.heldKey(), 1);
        }

        @Override
        public long enqueue(List<String> keys, Ticket ticket) {
            if (!liveTickets.add(ticket.id())) {
                refreshingEnqueues.incrementAndGet();
            }
            return 1;
        }

        @Override
        public boolean refreshesTickets() {
            return bulk;
        }

        @Override
        public void refreshTickets(List<Queued> tickets, long leaseMillis) {
            assertThat(bulk).isTrue();
            refreshCalls.incrementAndGet();
            for (Queued queued : tickets) {
                if (liveTickets.contains(queued.ticketId())) { // never placed again
                    refreshedTickets.incrementAndGet();
                }
            }
        }

        @Override
        public void dequeue(List<String> keys, String ticketId) {
            liveTickets.remove(ticketId);
        }
    }
}
