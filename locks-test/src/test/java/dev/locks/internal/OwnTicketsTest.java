package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LocksClock;
import dev.locks.contract.Starvation;
import dev.locks.contract.Threads;
import dev.locks.spi.RemoteLockStore;
import dev.locks.test.InMemoryLockServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * In front of a store whose queues count a node's own tickets ({@link RemoteLockStore#queuesOwnWaiters}, as Redis and
 * the SQL stores do), a node keeps its newcomers to a key out of its table while its own older ticket waits there
 * ({@link OwnTickets}): the store would refuse them anyway, and their attempts' short-lived table entries starved the
 * node's many-key waiter, which meets the table first (issue 24: the three-key waiter starved on MariaDB with twelve
 * one-key streams per node in every run).
 */
class OwnTicketsTest {

    private static final AcquireOptions WOKEN_ONLY = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMinutes(5));

    private final InMemoryLockServer server = new InMemoryLockServer(LocksClock.system());
    private final Queues queues = new Queues();
    private final Threads threads = new Threads();
    @RegisterExtension
    final EngineNodes nodes = new EngineNodes("queued");

    @AfterEach
    void stopThreads() {
        threads.close();
    }

    /**
     * The MariaDB starvation with the database taken out: sixteen one-key streams per node, each store call (attempt,
     * release, ticket) taking about 3 ms, as a loaded database's round trip does. Before {@link OwnTickets}, the
     * three-key waiter starved here in 1 run of 2 (and waited 5.5 s in the other; 6 to 11 s with twelve streams); since,
     * it gets its keys in about 120 ms. {@code StatementLockNodes} reproduces it on MariaDB every time.
     */
    @Test
    void aNodesOneKeyStreamsShouldNotStarveItsThreeKeyWaiter() throws Exception {
        List<EngineLockRegistry> two = List.of(nodes.node(queues.node(server.node(true), 3)),
                nodes.node(queues.node(server.node(true), 3)));

        Duration waited = Starvation.threeKeyWaiterAgainstStreams(threads, two, 16, Duration.ofMillis(5),
                Duration.ofSeconds(20));

        assertThat(waited).isLessThan(Duration.ofSeconds(20));
        assertThat(queues.tickets()).as("tickets left behind").isEmpty();
    }

    @Test
    void aNewcomerShouldWaitInMemoryBehindItsNodesOlderTicketAndTryAgainOnceItLeaves() throws Exception {
        Queues.Node storeOfA = queues.node(server.node(true), 0);
        EngineLockRegistry a = nodes.node(storeOfA);
        EngineLockRegistry b = nodes.node(queues.node(server.node(true), 0));
        Lease held = b.acquire(List.of("k"));
        Future<Object> older = threads.start(named("older", () -> {
            assertThatThrownBy(() -> a.acquire(List.of("k"), WOKEN_ONLY.withWaitTime(Duration.ofMillis(1_500))))
                    .isInstanceOf(LockTimeoutException.class);
            return null;
        }));
        await().atMost(Duration.ofSeconds(10)).until(() -> queues.tickets().containsKey("k"));

        Future<List<String>> newcomer = threads.start(named("newcomer", () -> {
            try (Lease lease = a.acquire(List.of("k"), WOKEN_ONLY.withWaitTime(Duration.ofSeconds(20)))) {
                return lease.keys();
            }
        }));
        await().atMost(Duration.ofSeconds(10)).until(() -> storeOfA.enqueuesBy("newcomer") > 0); // it waits
        assertThat(storeOfA.attemptsBy("newcomer")).as("the newcomer's attempts in the store while the older ticket"
                + " waited").isZero();
        assertThat(older).isNotDone();
        Threads.get(older); // gave up: its ticket left, and the newcomer tried again at once (else 5 minutes)
        await().atMost(Duration.ofSeconds(10)).until(() -> storeOfA.attemptsBy("newcomer") > 0);
        held.close();

        assertThat(Threads.get(newcomer)).isEqualTo(List.of("k"));
        assertThat(queues.tickets()).as("tickets left behind").isEmpty();
    }

    @Test
    void aHolderShouldReenterItsKeyWhileAnOlderTicketOfItsNodeWaitsThere() throws Exception {
        EngineLockRegistry a = nodes.node(queues.node(server.node(true), 0));
        Lease outer = a.acquire(List.of("k"));
        Future<List<String>> waiter = threads.start(() -> {
            try (Lease lease = a.acquire(List.of("k"), WOKEN_ONLY.withWaitTime(Duration.ofSeconds(20)))) {
                return lease.keys();
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queues.tickets().containsKey("k"));

        try (Lease inner = a.acquire(List.of("k"), AcquireOptions.defaults().withWaitTime(Duration.ZERO))) {
            assertThat(inner.isHeld()).isTrue();
        }
        outer.close();

        assertThat(Threads.get(waiter)).isEqualTo(List.of("k"));
    }

    /** {@code task}, run by a thread named {@code name} (the store counts its attempts by name). */
    private static <T> Callable<T> named(String name, Callable<T> task) {
        return () -> {
            Thread thread = Thread.currentThread();
            String was = thread.getName();
            thread.setName(name);
            try {
                return task.call();
            } finally {
                thread.setName(was);
            }
        };
    }

    /**
     * Wait queues shared by every node's store, as a database's or a Redis server's are: a ticket per waiting
     * acquire, in order, placed at the keys up to the one in its way and taken out of the later ones; a caller is
     * refused while a ticket older than its own (any, when it has none) waits at one of its keys, its own node's too.
     * Tickets do not expire here (every test's waiters end).
     */
    static final class Queues {
        private final Map<String, TreeMap<Long, String>> byKey = new HashMap<>();
        private final Map<String, Long> orders = new HashMap<>();
        private long lastOrder;

        Node node(RemoteLockStore node, long latencyMillis) {
            return new Node(node, latencyMillis);
        }

        /** The tickets waiting at each key: key to ticket ids, oldest first. */
        synchronized Map<String, List<String>> tickets() {
            Map<String, List<String>> tickets = new HashMap<>();
            byKey.forEach((key, queue) -> tickets.put(key, List.copyOf(queue.values())));
            return tickets;
        }

        /** The index of the first of {@code keys} at which a ticket older than {@code order} (any, at 0) waits. */
        private int queuedAhead(List<String> keys, String ticketId, long order) {
            for (int i = 0; i < keys.size(); i++) {
                TreeMap<Long, String> queue = byKey.get(keys.get(i));
                if (queue != null) {
                    for (Map.Entry<Long, String> ticket : queue.entrySet()) {
                        if (!ticket.getValue().equals(ticketId) && (order == 0 || ticket.getKey() < order)) {
                            return i;
                        }
                    }
                }
            }
            return -1;
        }

        private long place(List<String> keys, int upTo, RemoteLockStore.Ticket ticket) {
            long order = orders.computeIfAbsent(ticket.id(), id -> ++lastOrder);
            for (int i = 0; i < keys.size(); i++) {
                if (i <= upTo) {
                    byKey.computeIfAbsent(keys.get(i), k -> new TreeMap<>()).put(order, ticket.id());
                } else {
                    leave(keys.get(i), ticket.id());
                }
            }
            return order;
        }

        private void leave(String key, String ticketId) {
            Long order = orders.get(ticketId);
            TreeMap<Long, String> queue = byKey.get(key);
            if (order != null && queue != null) {
                queue.remove(order, ticketId);
                if (queue.isEmpty()) {
                    byKey.remove(key);
                }
            }
        }

        private void leaveAll(String ticketId) {
            for (String key : List.copyOf(byKey.keySet())) {
                leave(key, ticketId);
            }
        }

        /** One node's store: the in-memory server's node for the holds, these queues for the waiters. */
        final class Node extends DelegatingLockStore {
            private final long latencyMillis;
            private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
            private final Map<String, AtomicInteger> enqueues = new ConcurrentHashMap<>();

            Node(RemoteLockStore node, long latencyMillis) {
                super(node);
                this.latencyMillis = latencyMillis;
            }

            int attemptsBy(String thread) {
                return count(attempts, thread);
            }

            int enqueuesBy(String thread) {
                return count(enqueues, thread);
            }

            private static int count(Map<String, AtomicInteger> calls, String thread) {
                AtomicInteger count = calls.get(thread);
                return count == null ? 0 : count.get();
            }

            private static void counted(Map<String, AtomicInteger> calls) {
                calls.computeIfAbsent(Thread.currentThread().getName(), name -> new AtomicInteger()).incrementAndGet();
            }

            @Override
            public boolean queuesOwnWaiters() {
                return true;
            }

            @Override
            public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket) {
                counted(attempts);
                roundTrip();
                synchronized (Queues.this) {
                    String id = ticket == null ? "" : ticket.id();
                    Long mine = ticket == null ? null : orders.get(id);
                    int blocked = queuedAhead(keys, id, mine == null ? 0 : mine);
                    if (blocked < 0) {
                        Attempt attempt = node.tryAcquire(keys, owner, leaseMillis);
                        if (attempt.isTaken()) {
                            leaveAll(id);
                            orders.remove(id);
                            return attempt;
                        }
                        blocked = keys.indexOf(attempt.heldKey());
                    }
                    return ticket == null ? Attempt.heldBy(keys.get(blocked))
                            : Attempt.heldBy(keys.get(blocked), place(keys, blocked, ticket));
                }
            }

            @Override
            public Set<String> release(List<Ownership> keys) {
                roundTrip();
                return node.release(keys);
            }

            @Override
            public long enqueue(List<String> keys, Ticket ticket) {
                counted(enqueues);
                roundTrip();
                synchronized (Queues.this) {
                    return place(keys, keys.size() - 1, ticket);
                }
            }

            @Override
            public void dequeue(List<String> keys, String ticketId) {
                roundTrip();
                synchronized (Queues.this) {
                    leaveAll(ticketId);
                    orders.remove(ticketId);
                }
            }

            private void roundTrip() {
                if (latencyMillis > 0) {
                    try {
                        Thread.sleep(latencyMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
    }
}
