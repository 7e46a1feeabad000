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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Calls the client gave up on do not go on in the database (issue 27, observation 3): while a migration holds an
 * {@code ACCESS EXCLUSIVE} lock on the locks table, nodes that give up on their acquires neither pile up server
 * connections nor leave locks behind once the migration ends; after a pause of the database, a node's own abandoned
 * acquire does not keep the key from anyone for its whole lock timeout.
 */
class JdbcAbandonedCallsTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int NODES = 3;
    private static final int CONNECTIONS = 2;

    private final ReadyNodes nodes = new ReadyNodes(postgres.server());
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        nodes.close();
    }

    /** A node: a registry on a data source of its own (its own listening connection), with a 1 s round trip. */
    private JdbcLockRegistry node() {
        return nodes.node(CONNECTIONS, Duration.ofSeconds(1));
    }

    /** Client connections to the server other than the asking one. */
    private static long serverConnections() throws Exception {
        return postgres.server().queryLong("SELECT count(*) FROM pg_stat_activity"
                + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
    }

    @Test
    void aMigrationsTableLockShouldNeitherPileUpConnectionsNorLeaveGhostLocks() throws Exception {
        for (int i = 0; i < NODES; i++) {
            node();
        }
        long owned = NODES * (CONNECTIONS + 1L); // each node's connections and its listening one
        assertThat(serverConnections()).isEqualTo(owned);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger gaveUp = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        AtomicLong most = new AtomicLong();
        List<Future<?>> callers = new ArrayList<>();
        try (Connection migration = postgres.server().connect(); Statement statement = migration.createStatement()) {
            migration.setAutoCommit(false);
            statement.execute("LOCK TABLE locks_lock IN ACCESS EXCLUSIVE MODE");
            for (JdbcLockRegistry node : nodes.all()) {
                for (int t = 0; t < 3; t++) {
                    String key = "migrating-" + t;
                    callers.add(threads.submit(() -> {
                        while (!stop.get()) {
                            try {
                                try (Lease lease = node.acquire(List.of(key),
                                        AcquireOptions.defaults().withWaitTime(Duration.ofMillis(200)))) {
                                    taken.incrementAndGet();
                                }
                            } catch (LockUnavailableException | LockTimeoutException e) {
                                gaveUp.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
            while (System.nanoTime() < end) {
                most.accumulateAndGet(serverConnections() - 1, Math::max); // less the migration's own
                Thread.sleep(200);
            }
            stop.set(true);
            for (Future<?> caller : callers) {
                caller.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            }
            migration.rollback(); // the migration ends
        }

        assertThat(taken.get()).as("nothing could be taken during the migration").isZero();
        assertThat(gaveUp.get()).isPositive();
        assertThat(most.get()).as("server connections during the migration, the nodes owning " + owned)
                .isLessThanOrEqualTo(owned);
        Thread.sleep(3000); // what the server still ran for callers that gave up would have committed by now
        assertThat(postgres.server().queryLong("SELECT count(*) FROM locks_lock")).as("ghost locks").isZero();
        for (JdbcLockRegistry node : nodes.all()) {
            assertThat(node.heldLocks()).isEmpty();
        }
    }

    @Test
    void afterAPauseOfTheDatabaseANodesAbandonedAcquireShouldNotHoldTheKey() throws Exception {
        JdbcLockRegistry first = node();
        JdbcLockRegistry second = node();

        postgres.server().pause();
        try {
            Future<?> abandoned = threads.submit(() -> first.acquire(List.of("paused"),
                    AcquireOptions.defaults().withWaitTime(Duration.ofMillis(200))));
            assertThat(abandoned).failsWithin(BOUND).withThrowableThat().havingCause()
                    .isInstanceOf(LockUnavailableException.class);
            Thread.sleep(8000 - 1000);
        } finally {
            postgres.server().resume();
        }

        // the default lock timeout is 30 s: a lock the abandoned acquire committed would block until then
        try (Lease lease = second.acquire(List.of("paused"),
                AcquireOptions.defaults().withInfiniteRetries().withWaitTime(Duration.ofSeconds(10)))) {
            assertThat(lease.isHeld()).isTrue();
        }
        await().atMost(BOUND).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> first.tryAcquire(List.of("paused")).map(lease -> {
                    lease.close();
                    return true;
                }).orElse(false));
        assertThat(postgres.server().queryLong("SELECT count(*) FROM locks_lock")).isZero();
    }
}
