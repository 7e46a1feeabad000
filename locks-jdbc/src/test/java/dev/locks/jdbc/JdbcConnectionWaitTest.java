package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A caller's wait for one of its node's own connections is bounded by its own wait, not by the round-trip timeout
 * times its place in the queue (issue 27, observation 4): with every connection busy (a migration's table lock makes
 * each call last until the server's lock timeout, or the server is paused), an acquire with wait time W ends within
 * W and one round-trip timeout, a caller that does not wait queues for one round-trip timeout at most, and nothing
 * stays taken. A caller whose wait ran out while it queued behind calls the server still answers gets a
 * {@link LockTimeoutException} (a busy node, SPEC 3 and 7); one behind calls the server does not answer within the
 * round-trip timeout gets a {@link LockUnavailableException} (SPEC 8 and 9).
 */
class JdbcConnectionWaitTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(120);
    private static final int CONNECTIONS = 2;
    private static final int CALLERS = 24;
    /** The node's round-trip timeout: the server cancels a statement waiting on a lock after 3/4 of it. */
    private static final Duration ROUND_TRIP = Duration.ofSeconds(2);
    /** What the bounds allow beyond the promise, for a loaded machine's scheduling. */
    private static final Duration SLACK = Duration.ofSeconds(1);

    private final ReadyNodes nodes = new ReadyNodes(postgres.server());
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        nodes.close();
    }

    private JdbcLockRegistry node(Duration roundTrip) {
        return nodes.node(CONNECTIONS, roundTrip);
    }

    /** How one caller's call ended, and after how long. */
    private record Outcome(Object result, long millis) {
        @Override
        public String toString() {
            return (result instanceof Throwable failure ? failure.getClass().getSimpleName() : result) + " after "
                    + millis + " ms";
        }
    }

    /** Runs {@code CALLERS} calls at once, each on a key of its own, and waits for each to end. */
    private List<Outcome> atOnce(JdbcLockRegistry node, String prefix, CallerCall call) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Outcome>> callers = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            String key = prefix + "-" + i;
            Callable<Outcome> caller = () -> {
                start.await();
                long began = System.nanoTime();
                Object result;
                try {
                    result = call.on(node, key);
                } catch (LockTimeoutException | LockUnavailableException e) {
                    result = e;
                }
                return new Outcome(result, (System.nanoTime() - began) / 1_000_000);
            };
            callers.add(threads.submit(caller));
        }
        start.countDown();
        List<Outcome> outcomes = new ArrayList<>();
        for (Future<Outcome> caller : callers) {
            outcomes.add(caller.get(BOUND.toSeconds(), TimeUnit.SECONDS));
        }
        return outcomes;
    }

    @FunctionalInterface
    private interface CallerCall {
        Object on(JdbcLockRegistry node, String key);
    }

    /** A migration: {@code ACCESS EXCLUSIVE} on the locks table, held until the connection rolls back. */
    private static Connection migration() throws Exception {
        Connection migration = postgres.server().connect();
        migration.setAutoCommit(false);
        try (Statement statement = migration.createStatement()) {
            statement.execute("LOCK TABLE locks_lock IN ACCESS EXCLUSIVE MODE");
        }
        return migration;
    }

    private static long count(List<Outcome> outcomes, Class<?> type) {
        return outcomes.stream().filter(outcome -> type.isInstance(outcome.result())).count();
    }

    private static long slowest(List<Outcome> outcomes) {
        return outcomes.stream().mapToLong(Outcome::millis).max().orElseThrow();
    }

    @Test
    void acquiresQueuedBehindBusyConnectionsShouldEndWithinTheirWaitTimeAndOneRoundTrip() throws Exception {
        JdbcLockRegistry node = node(ROUND_TRIP);
        Duration wait = Duration.ofMillis(500);
        List<Outcome> outcomes;
        try (Connection migration = migration()) {
            // each call that gets a connection waits for the table until the server cancels it (3/4 of the timeout):
            // the 24 callers would get the 2 connections one pair after the other, 1.5 s per pair
            outcomes = atOnce(node, "queued", (registry, key) -> {
                try (Lease lease = registry.acquire(List.of(key), AcquireOptions.defaults().withWaitTime(wait))) {
                    return lease;
                }
            });
            migration.rollback();
        }

        assertThat(slowest(outcomes)).as("the slowest of " + outcomes)
                .isLessThanOrEqualTo(wait.plus(ROUND_TRIP).plus(SLACK).toMillis());
        assertThat(count(outcomes, LockTimeoutException.class) + count(outcomes, LockUnavailableException.class))
                .as("nothing could be taken during the migration: %s", outcomes).isEqualTo(CALLERS);
        // the server answered all along (each call that got a connection was cancelled by its lock timeout): the
        // callers whose wait ran out in the queue for a connection were busy, not facing an outage
        assertThat(count(outcomes, LockTimeoutException.class)).as("timeouts among %s", outcomes)
                .isGreaterThanOrEqualTo(CALLERS - 2L * CONNECTIONS);
        outcomes.stream().filter(outcome -> outcome.result() instanceof LockTimeoutException)
                .forEach(outcome -> assertThat(((LockTimeoutException) outcome.result()).getMessage())
                        .contains("connections").contains("locks.jdbc.connections"));
        assertNothingLeft(node, "queued");
    }

    /**
     * The same for asynchronous acquires: their attempts run on the registry's small pool, so a caller's bound must
     * hold however many attempts wait for a connection ahead of it there, and a future must never complete later
     * than its wait and one round trip because the pool's threads sat in connection queues.
     */
    @Test
    void asynchronousAcquiresQueuedBehindBusyConnectionsShouldEndWithinTheirWaitTimeAndOneRoundTrip()
            throws Exception {
        JdbcLockRegistry node = node(ROUND_TRIP);
        Duration wait = Duration.ofMillis(500);
        List<Outcome> outcomes;
        try (Connection migration = migration()) {
            outcomes = atOnce(node, "async", (registry, key) -> {
                try {
                    try (Lease lease = registry.acquireAsync(List.of(key), AcquireOptions.defaults()
                            .withWaitTime(wait)).get(BOUND.toSeconds(), TimeUnit.SECONDS)) {
                        return lease;
                    }
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException failure) {
                        throw failure;
                    }
                    throw new IllegalStateException(e);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            migration.rollback();
        }

        assertThat(slowest(outcomes)).as("the slowest of " + outcomes)
                .isLessThanOrEqualTo(wait.plus(ROUND_TRIP).plus(SLACK).toMillis());
        assertThat(count(outcomes, LockTimeoutException.class) + count(outcomes, LockUnavailableException.class))
                .as("nothing could be taken during the migration: %s", outcomes).isEqualTo(CALLERS);
        assertNothingLeft(node, "async");
    }

    @Test
    void callsThatDoNotWaitShouldQueueForOneRoundTripAtMost() throws Exception {
        JdbcLockRegistry node = node(ROUND_TRIP);
        List<Outcome> outcomes;
        try (Connection migration = migration()) {
            outcomes = atOnce(node, "trying", (registry, key) -> registry.tryAcquire(List.of(key)).map(lease -> {
                lease.close();
                return (Object) lease;
            }).orElse(Optional.empty()));
            migration.rollback();
        }

        // one round trip of queueing, then its own call: at most another round trip
        assertThat(slowest(outcomes)).as("the slowest of " + outcomes)
                .isLessThanOrEqualTo(ROUND_TRIP.multipliedBy(2).plus(SLACK).toMillis());
        assertThat(count(outcomes, Optional.class) + count(outcomes, LockUnavailableException.class))
                .as("nothing could be taken during the migration: %s", outcomes).isEqualTo(CALLERS);
        assertThat(count(outcomes, Optional.class)).as("busy, not out of reach: %s", outcomes).isPositive();
        assertNothingLeft(node, "trying");
    }

    @Test
    void acquiresQueuedBehindCallsAPausedServerDoesNotAnswerShouldEndWithinTheirWaitAndOneRoundTrip()
            throws Exception {
        Duration roundTrip = Duration.ofSeconds(1);
        JdbcLockRegistry node = node(roundTrip);
        Duration shortWait = Duration.ofMillis(300);
        Duration longWait = Duration.ofSeconds(3);
        List<Outcome> first;
        List<Outcome> patient;
        List<Outcome> later;
        postgres.server().pause();
        try {
            first = atOnce(node, "first", (registry, key) -> registry.acquire(List.of(key),
                    AcquireOptions.defaults().withWaitTime(shortWait)));
            patient = atOnce(node, "patient", (registry, key) -> registry.acquire(List.of(key),
                    AcquireOptions.defaults().withWaitTime(longWait)));
            later = atOnce(node, "later", (registry, key) -> registry.acquire(List.of(key),
                    AcquireOptions.defaults().withWaitTime(shortWait)));
        } finally {
            postgres.server().resume();
        }

        // the first calls in flight are not answered within the round-trip timeout: an outage; the callers queued
        // behind them, whose wait ran out before that, could not tell a paused server from a busy one: a timeout
        // (exactly CONNECTIONS and CALLERS - CONNECTIONS unless a caller's thread started late, after a round trip
        // had timed out)
        assertThat(count(first, LockUnavailableException.class)).as("%s", first).isGreaterThanOrEqualTo(CONNECTIONS);
        assertThat(count(first, LockTimeoutException.class)).as("%s", first).isGreaterThanOrEqualTo(CALLERS / 2);
        assertThat(count(first, LockTimeoutException.class) + count(first, LockUnavailableException.class))
                .as("%s", first).isEqualTo(CALLERS);
        assertThat(slowest(first)).as("the slowest of " + first)
                .isLessThanOrEqualTo(shortWait.plus(roundTrip).plus(SLACK).toMillis());
        // once a call went unanswered, and nothing was answered since, every caller faces an outage
        assertThat(count(patient, LockUnavailableException.class)).as("%s", patient).isEqualTo(CALLERS);
        assertThat(slowest(patient)).as("the slowest of " + patient)
                .isLessThanOrEqualTo(longWait.plus(roundTrip).plus(SLACK).toMillis());
        assertThat(count(later, LockUnavailableException.class)).as("%s", later).isEqualTo(CALLERS);
        assertThat(slowest(later)).as("the slowest of " + later)
                .isLessThanOrEqualTo(shortWait.plus(roundTrip).plus(SLACK).toMillis());
        for (String prefix : List.of("first", "patient", "later")) {
            assertNothingLeft(node, prefix);
        }
    }

    /** Nothing stays taken: every key is free again at once, the table empties, the connections come back. */
    private static void assertNothingLeft(JdbcLockRegistry node, String prefix) throws Exception {
        // an acquire the paused server never answered is undone in the background once it runs again
        await().atMost(BOUND).untilAsserted(() -> assertThat(postgres.server().queryLong(
                "SELECT count(*) FROM locks_lock")).as("locks left in the table").isZero());
        await().atMost(BOUND).until(() -> node.store().connections().idleCount() == CONNECTIONS);
        for (int i = 0; i < CALLERS; i++) {
            Optional<Lease> lease = node.tryAcquire(List.of(prefix + "-" + i));
            assertThat(lease).as(prefix + "-" + i).isPresent();
            lease.get().close();
        }
        assertThat(node.heldLocks()).isEmpty();
        assertThat(postgres.server().queryLong("SELECT count(*) FROM locks_waiter")).as("tickets left").isZero();
    }
}
