package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing tokens on PostgreSQL (SPEC 3: each lease's token is greater than every token issued before for any
 * of its keys): drawn once every row of the lease is taken, never before a wait, and at least the database's
 * clock in microseconds, so that a lost or rewound sequence (a failover to a replica that had not yet received
 * its last values) still issues tokens above the earlier ones.
 */
class JdbcFencingTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(30);

    private final List<JdbcLockRegistry> nodes = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void closeNodes() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        nodes.forEach(JdbcLockRegistry::close);
    }

    private JdbcLockRegistry node() {
        JdbcLockRegistry node = JdbcLockRegistry.builder(postgres.dataSource()).initializeSchema(true)
                .cleanupInterval(Duration.ZERO).build();
        nodes.add(node);
        return node;
    }

    /**
     * Issue 27, observation 1: a short transaction holds the row of fa while node A acquires [fa, fb], so A's
     * call waits on that row; meanwhile node B takes and releases fb. A's token, when it gets both keys, must be
     * greater than B's (it was 115784 against 115785 when the token was drawn before the wait).
     */
    @Test
    void aLeaseThatWaitedOnARowShouldGetATokenAboveEveryLeaseThatTookItsKeysMeanwhile() throws Exception {
        JdbcLockRegistry a = node();
        JdbcLockRegistry b = node();
        try (Lease first = a.acquire(List.of("fa"))) {
            assertThat(first.fencingToken()).isPositive(); // the schema is in place, fa has held a row
        }
        long bToken;
        Future<Long> aToken;
        try (Connection rowHolder = postgres.server().connect()) {
            rowHolder.setAutoCommit(false);
            try (Statement statement = rowHolder.createStatement()) {
                // fa's row, left expired (as a crashed holder's), locked by a transaction that stays open
                statement.executeUpdate("INSERT INTO locks_lock (lock_key, owner_id, owner_desc, token, acquired_at,"
                        + " expires_at) VALUES ('fa', 'gone', 'a crashed holder', 1, clock_timestamp(),"
                        + " clock_timestamp()) ON CONFLICT (lock_key) DO NOTHING");
                rowHolder.commit();
                statement.executeQuery("SELECT * FROM locks_lock WHERE lock_key = 'fa' FOR UPDATE").close();
            }
            AcquireOptions patient = AcquireOptions.defaults().withWaitTime(BOUND);
            aToken = threads.submit(() -> {
                try (Lease lease = a.acquire(List.of("fa", "fb"), patient)) {
                    return lease.fencingToken();
                }
            });
            await().atMost(BOUND).until(JdbcFencingTest::aCallWaitsOnARowLock);
            try (Lease lease = b.acquire(List.of("fb"))) {
                bToken = lease.fencingToken();
            }
            rowHolder.rollback();
        }
        assertThat(aToken.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(bToken);
    }

    /** Tokens are microseconds by the database's clock, at least: as on Redis, whatever the sequence says. */
    @Test
    void aTokenShouldBeAtLeastTheDatabasesClockInMicroseconds() throws Exception {
        JdbcLockRegistry node = node();
        Instant before = postgres.server().queryInstant("SELECT clock_timestamp()");
        try (Lease lease = node.acquire(List.of("clock"))) {
            assertThat(lease.fencingToken()).isGreaterThanOrEqualTo(micros(before));
        }
    }

    /**
     * A sequence set back (as on a replica promoted before it received the sequence's last values): the tokens
     * of every key still go up, and the sequence is moved ahead of them again.
     */
    @Test
    void aRewoundSequenceShouldNotMakeTokensGoBack() throws Exception {
        JdbcLockRegistry node = node();
        long before = 0;
        for (int i = 0; i < 5; i++) {
            try (Lease lease = node.acquire(List.of("rewound", "other"))) {
                before = lease.fencingToken();
            }
        }
        postgres.server().queryLong("SELECT setval('locks_fencing', 1)");

        long after;
        try (Lease lease = node.acquire(List.of("rewound"))) {
            after = lease.fencingToken();
        }
        assertThat(after).isGreaterThan(before);
        assertThat(postgres.server().queryLong("SELECT last_value FROM locks_fencing")).isGreaterThanOrEqualTo(after);
    }

    static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
    }

    private static boolean aCallWaitsOnARowLock() throws SQLException {
        return postgres.server().queryLong("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                + " AND query LIKE '%locks_acquire%'") > 0;
    }
}
