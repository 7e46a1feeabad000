package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.jdbc.test.H2DatabaseExtension;
import static org.awaitility.Awaitility.await;

import dev.locks.spi.RemoteComputeStore.Claim;
import dev.locks.spi.RemoteComputeStore.Claimant;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The statement compute store on H2, where the SPI asks more than the contract suites show. */
class H2ComputeStoreTest {

    @RegisterExtension
    static final H2DatabaseExtension h2 = new H2DatabaseExtension();

    /**
     * A step gives the same answer whatever the caller's interrupt status (SPI), also when it waits for the key's
     * row, which another transaction holds for a moment: H2 swallows the status in such a wait unless the store keeps
     * it aside, and the caller keeps it afterwards.
     */
    @Test
    void aClaimOfAnInterruptedThreadThatWaitsForTheKeysRowShouldComputeAndKeepTheStatus() throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (JdbcComputeCache cache = JdbcComputeCache.builder(h2.dataSource()).initializeSchema(true).build()) {
            assertThat(cache.fetchOrCompute("k", Duration.ofMinutes(1), () -> "v")).isEqualTo("v");
            cache.invalidate("k");
            AtomicBoolean interruptedAfter = new AtomicBoolean();
            Future<Claim> claim;
            try (Connection holder = h2.dataSource().getConnection(); Statement statement = holder.createStatement()) {
                holder.setAutoCommit(false);
                statement.executeQuery("SELECT * FROM locks_compute FOR UPDATE").close();
                claim = thread.submit(() -> {
                    Thread.currentThread().interrupt();
                    try {
                        return cache.store().claim("k", new Claimant("c", "interrupted", Duration.ofSeconds(30), "m",
                                "hint", Duration.ofMinutes(1)), null);
                    } finally {
                        interruptedAfter.set(Thread.interrupted());
                    }
                });
                Thread.sleep(300);
                holder.commit();
            }
            assertThat(claim.get(10, TimeUnit.SECONDS)).isInstanceOf(Claim.Compute.class);
            assertThat(interruptedAfter).isTrue();
        } finally {
            thread.shutdownNow();
        }
    }

    /**
     * Notices are numbered as they are written, and a transaction may commit after a later one: the poller must not
     * step over the earlier number it has not seen, however late (within a couple of seconds) it commits.
     */
    @Test
    void aNoticeCommittedAfterALaterOneShouldStillBeHeard() throws Exception {
        try (JdbcComputeCache schema = JdbcComputeCache.builder(h2.dataSource()).initializeSchema(true).build();
                StatementComputeStore store = new StatementComputeStore(h2.dataSource(),
                        new Schema(Schema.DEFAULT_PREFIX, Dialect.H2), "", 1, 5_000, Duration.ofMillis(20))) {
            List<String> heard = new CopyOnWriteArrayList<>();
            store.subscribe(heard::add);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.listenerConfirmations() > 0);
            try (Connection late = h2.dataSource().getConnection()) {
                late.setAutoCommit(false);
                tell(late, "earlier");
                try (Connection early = h2.dataSource().getConnection()) {
                    tell(early, "later");
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("later"));
                Thread.sleep(200);
                late.commit();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("earlier"));
            assertThat(heard).containsExactly("later", "earlier");
        }
    }

    /**
     * The tables need no sweeper of the application's: the node's poller removes the notices, records and values
     * that expired more than a minute ago, and keeps the younger ones.
     */
    @Test
    void thePollerShouldRemoveWhatExpiredMoreThanAMinuteAgo() throws Exception {
        try (JdbcComputeCache schema = JdbcComputeCache.builder(h2.dataSource()).initializeSchema(true).build()) {
            String now = StatementComputeStore.now(Dialect.H2);
            try (Connection connection = h2.dataSource().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("DELETE FROM locks_compute_notice"); // the extension empties the other tables
                for (String at : new String[] {now + " - 61000", now + " - 1000"}) {
                    statement.execute("INSERT INTO locks_compute_notice (created_at, payload) VALUES (" + at + ", 'n')");
                    statement.execute("INSERT INTO locks_value (value_key, stored_value, stored_at, expires_at)"
                            + " VALUES (CAST(RANDOM_UUID() AS VARBINARY), X'00', 0, " + at + ")");
                    statement.execute("INSERT INTO locks_compute (compute_key, invalidated, miss_id, turn,"
                            + " computer_id, computer_desc, started_at, hint, ttl_ms, state, expires_at)"
                            + " VALUES (CAST(RANDOM_UUID() AS VARBINARY), FALSE, 'm', 0, 'c', 'd', 0, 'h', 0, 'done', "
                            + at + ")");
                }
            }
            try (StatementComputeStore store = new StatementComputeStore(h2.dataSource(),
                    new Schema(Schema.DEFAULT_PREFIX, Dialect.H2), "", 1, 5_000, Duration.ofMillis(20))) {
                store.subscribe(notice -> { });
                await().atMost(Duration.ofSeconds(10)).until(() -> count("locks_compute_notice") == 1
                        && count("locks_value") == 1 && count("locks_compute") == 1);
            }
        }
    }

    private static long count(String table) throws Exception {
        try (Connection connection = h2.dataSource().getConnection(); Statement statement = connection.createStatement();
                java.sql.ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static void tell(Connection connection, String key) throws Exception {
        try (PreparedStatement statement = connection.prepareStatement(
                "INSERT INTO locks_compute_notice (created_at, payload) VALUES (" + StatementComputeStore.now(Dialect.H2)
                        + ", ?)")) {
            statement.setString(1, "0:" + key); // behind the key prefix "", as SqlComputeStore#notice writes it
            statement.executeUpdate();
        }
    }
}
