package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.contract.Starvation;
import dev.locks.contract.Threads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two registries on one database without notifications (MariaDB, MySQL, H2) are two nodes: exclusion, the poll that
 * wakes a waiter of the other node, fairness across nodes (SPEC 3), tokens, keys as given. Each subclass names its
 * database.
 */
abstract class StatementLockNodes {

    static final Duration BOUND = Duration.ofSeconds(30);

    private final List<JdbcLockRegistry> nodes = new ArrayList<>();
    final Threads threads = new Threads();

    protected abstract DataSource dataSource();

    @AfterEach
    void closeNodes() {
        threads.close();
        nodes.forEach(JdbcLockRegistry::close);
    }

    JdbcLockRegistry node(JdbcLockRegistry.Builder builder) {
        JdbcLockRegistry node = builder.initializeSchema(true).cleanupInterval(Duration.ZERO).build();
        nodes.add(node);
        return node;
    }

    JdbcLockRegistry node() {
        return node(JdbcLockRegistry.builder(dataSource()));
    }

    /** See {@link TicketRefreshes}: the database's clock is UTC, in a column without a zone. */
    @Test
    void aRefreshShouldExtendTicketsStillQueuedAndNeverPlaceOneAgain() throws Exception {
        TicketRefreshes.shouldExtendTicketsStillQueuedAndNeverPlaceOneAgain(node().store(), dataSource(),
                (row, column) -> row.getObject(column, LocalDateTime.class).toInstant(ZoneOffset.UTC));
    }

    @Test
    void whatOneNodeHoldsTheOtherShouldNotTake() {
        TwoNodes.whatOneHoldsTheOtherShouldNotTake(node(), node());
    }

    @Test
    void threadsOfTwoNodesShouldNeverHoldAKeyTogether() throws Exception {
        TwoNodes.threadsShouldNeverHoldAKeyTogether(node(), node(), 100, BOUND);
    }

    /**
     * Node B's waiter retries every 10 s: only the poll for releases (every 100 ms by default) can give it the key
     * well within that after node A released it.
     */
    @Test
    void aWaiterOnAnotherNodeShouldGetTheKeyWithinAboutThePollIntervalOfItsRelease() throws Exception {
        JdbcLockRegistry a = node();
        JdbcLockRegistry b = node();
        await().atMost(BOUND).until(() -> b.store().listenerConfirmations() > 0);
        AcquireOptions sleepy = AcquireOptions.defaults().withInfiniteRetries()
                .withRetryInterval(Duration.ofSeconds(10)).withWaitTime(Duration.ofMinutes(1));
        Lease held = a.acquire(List.of("hand-off"));
        long[] takenAt = new long[1];
        Future<Long> taken = threads.start(() -> {
            try (Lease lease = b.acquire(List.of("hand-off"), sleepy)) {
                takenAt[0] = System.nanoTime();
                return lease.fencingToken();
            }
        });
        Thread.sleep(500); // b's first attempt failed: it now sleeps for 10 s

        long released = System.nanoTime();
        held.close();

        assertThat(taken.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        Duration handOff = Duration.ofNanos(takenAt[0] - released);
        System.out.println("cross-node hand-off after the release: " + handOff.toMillis() + " ms");
        assertThat(handOff).as("woken by the poll, not the retry interval").isLessThan(Duration.ofSeconds(5));
    }

    /**
     * SPEC "No starvation", within a node as across nodes: twelve one-key streams per node (24 threads spinning 5 ms
     * holds on two cores). Before a node kept its newcomers out of the keys where its own older ticket waits
     * ({@code OwnTickets}), the three-key waiter starved here on MariaDB in 4 runs of 4 (about 15,000 attempts in 20 s,
     * each turned away in the node's memory by the entry of a stream's attempt that the store then refused for the
     * waiter's ticket); at eight streams it had starved in 2 of 3 runs and once in a clean-clone run. Since, it gets
     * its keys in 90 to 170 ms at 12, 16 and 24 streams per node.
     */
    @Test
    void threeKeyWaiterShouldGetItsKeysAgainstOneKeyStreamsOnTwoNodes() throws Exception {
        List<JdbcLockRegistry> two = List.of(node(), node());

        Duration waited = Starvation.threeKeyWaiterAgainstStreams(threads, two, 12, Duration.ofMillis(5),
                Duration.ofSeconds(20));

        assertThat(waited).isLessThan(Duration.ofSeconds(20));
        assertThat(two.get(1).heldLocks()).isEmpty();
    }

    /** SPEC 3, bounded bypass across nodes: A releasing and re-taking a key in a loop cannot starve B's waiter. */
    @Test
    void theLongestWaiterOnAnotherNodeShouldGetTheKeyBeforeTheReleasingNodesNextCall() throws Exception {
        JdbcLockRegistry a = node();
        JdbcLockRegistry b = node();
        AcquireOptions patient = AcquireOptions.defaults().withInfiniteRetries().withWaitTime(BOUND);
        List<Integer> bypasses = new ArrayList<>();
        for (int round = 0; round < 10; round++) {
            String key = "fair-" + round;
            AtomicInteger cycles = new AtomicInteger();
            Lease held = a.acquire(List.of(key));
            Future<Integer> waiter = threads.start(() -> {
                try (Lease lease = b.acquire(List.of(key), patient)) {
                    return cycles.get();
                }
            });
            await().atMost(BOUND).until(() -> count("SELECT COUNT(*) FROM locks_waiter") > 0);
            while (!waiter.isDone() && cycles.get() < 100) {
                held.close();
                held = a.acquire(List.of(key), patient);
                cycles.incrementAndGet();
            }
            held.close();
            bypasses.add(waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS));
        }
        assertThat(bypasses).as("A's re-takes ahead of the waiter, per round").allMatch(n -> n <= 3);
    }

    @Test
    void aTicketShouldLeaveTheQueueWhenItsWaiterGivesUp() throws Exception {
        JdbcLockRegistry a = node();
        JdbcLockRegistry b = node();
        AcquireOptions brief = AcquireOptions.defaults().withInfiniteRetries()
                .withRetryInterval(Duration.ofMillis(50)).withWaitTime(Duration.ofMillis(600));
        try (Lease held = a.acquire(List.of("queued"))) {
            assertThatThrownBy(() -> b.acquire(List.of("queued"), brief)).isInstanceOf(LockTimeoutException.class);
        }
        assertThat(count("SELECT COUNT(*) FROM locks_waiter")).isZero();
        assertThat(a.tryAcquire(List.of("queued"))).hasValueSatisfying(Lease::close);
    }

    /** Tokens go up for every key across nodes, and are at least the database's clock in microseconds. */
    @Test
    void tokensShouldGoUpAcrossNodesAndFollowTheDatabasesClock() throws Exception {
        JdbcLockRegistry a = node();
        JdbcLockRegistry b = node();
        long before = 0;
        for (int i = 0; i < 10; i++) {
            try (Lease lease = (i % 2 == 0 ? a : b).acquire(List.of("token", "other-" + i))) {
                assertThat(lease.fencingToken()).isGreaterThan(before);
                before = lease.fencingToken();
            }
        }
        long micros = java.time.Instant.now().toEpochMilli() * 1000;
        assertThat(before).isBetween(micros - 60_000_000L, micros + 60_000_000L); // this machine is the database's
    }

    /** Keys as SPEC 2 allows them: a NUL, any code point, 1,024 characters (stored as a digest beyond 1,000 bytes). */
    @Test
    void unusualAndLongKeysShouldBeTakenListedAndReleasedAsGiven() {
        JdbcLockRegistry a = node();
        JdbcLockRegistry b = node();
        String nul = "a\u0000b";
        String wide = ("\uD83D\uDD12" + "clé ".repeat(300)).substring(0, 1024);
        String spaced = "k ";
        for (List<String> keys : List.of(List.of(nul), List.of(wide), List.of("k", spaced))) {
            try (Lease lease = a.acquire(keys)) {
                assertThat(b.tryAcquire(keys)).isEmpty();
                assertThat(b.heldLocks()).extracting(HeldLock::key).containsExactlyInAnyOrderElementsOf(keys);
            }
            assertThat(b.tryAcquire(keys)).hasValueSatisfying(Lease::close);
        }
    }

    /** An expired lock (a crashed node's) blocks nobody, is listed by nobody, and the sweep frees it. */
    @Test
    void expiredLocksShouldBlockNobodyAndTheSweepShouldFreeThem() throws Exception {
        JdbcLockRegistry a = node();
        JdbcLockRegistry b = node();
        a.acquire(List.of("crashed"), AcquireOptions.defaults().withLockTimeout(Duration.ofMillis(300)));
        await().atMost(BOUND).until(() -> b.heldLocks().isEmpty());
        assertThat(b.sweep()).isEqualTo(1);
        assertThat(b.tryAcquire(List.of("crashed"))).hasValueSatisfying(Lease::close);
    }

    /** A key prefix is a namespace within the table: another prefix's nodes neither see nor block its keys. */
    @Test
    void aKeyPrefixShouldBeANamespaceWithinTheTable() {
        JdbcLockRegistry app = node(JdbcLockRegistry.builder(dataSource()).keyPrefix("app:"));
        JdbcLockRegistry other = node(JdbcLockRegistry.builder(dataSource()).keyPrefix("other:"));
        try (Lease lease = app.acquire(List.of("k"))) {
            assertThat(other.tryAcquire(List.of("k"))).hasValueSatisfying(Lease::close);
            assertThat(other.heldLocks()).isEmpty();
            assertThat(app.heldLocks()).extracting(HeldLock::key).containsExactly("k");
        }
    }

    long count(String sql) throws SQLException {
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }
}
