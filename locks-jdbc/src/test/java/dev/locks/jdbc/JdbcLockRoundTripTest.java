package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.jdbc.test.CountingDataSource;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One acquire and one release are one statement each, whatever the number of keys (SPEC 9). */
class JdbcLockRoundTripTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private CountingDataSource counting;
    private JdbcLockRegistry registry;

    @BeforeEach
    void setUp() {
        counting = new CountingDataSource(postgres.dataSource());
        registry = JdbcLockRegistry.builder(counting).initializeSchema(true).cleanupInterval(Duration.ZERO).build();
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.store().listenerConfirmations() > 0
                && registry.store().connections().idleCount() == 2);
    }

    @AfterEach
    void tearDown() {
        registry.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 5, 100})
    void acquireAndReleaseShouldBeOneStatementEach(int keyCount) {
        List<String> keys = IntStream.range(0, keyCount).mapToObj(i -> "key-" + i).toList();
        counting.reset();

        Lease lease = registry.acquire(keys);
        List<String> acquire = lockStatements();
        counting.reset();
        lease.close();
        List<String> release = lockStatements();

        assertThat(acquire).containsExactly("SELECT locks_acquire(?, ?, ?, ?, ?, ?, ?, ?)");
        assertThat(release).containsExactly("SELECT locks_release(?, ?)");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 5})
    void aFailedAttemptShouldBeOneStatementAndReentryNone(int keyCount) {
        List<String> keys = IntStream.range(0, keyCount).mapToObj(i -> "key-" + i).toList();
        try (Lease lease = registry.acquire(keys)) {
            counting.reset();
            try (Lease again = registry.acquire(keys)) {
                assertThat(again.isHeld()).isTrue();
            }
            assertThat(lockStatements()).isEmpty(); // re-entry: in this node's memory only
        }
        try (JdbcLockRegistry other = JdbcLockRegistry.builder(counting).notify(false).build()) {
            try (Lease held = registry.acquire(keys)) {
                counting.reset();
                assertThat(other.tryAcquire(keys)).isEmpty();
                assertThat(lockStatements()).containsExactly("SELECT locks_acquire(?, ?, ?, ?, ?, ?, ?, ?)");
            }
        }
    }

    /**
     * Issue 27, observation 11: a bounded listing (the endpoint asks for locks.endpoint.max-listed) reads no more
     * than it shows, however many locks the table holds: batches of 4 for 10 locks out of 500 are three
     * statements (4, 4, then 2), where reading them all took 126.
     */
    @Test
    void aBoundedListingShouldReadNoMoreRowsThanItShows() throws Exception {
        postgres.server().queryLong("WITH added AS (INSERT INTO locks_lock (lock_key, owner_id, owner_desc, token,"
                + " acquired_at, expires_at) SELECT 'listed-' || lpad(i::text, 4, '0'), 'owner-' || i, 'a holder', i,"
                + " clock_timestamp(), clock_timestamp() + interval '1 hour' FROM generate_series(1, 500) i"
                + " RETURNING 1) SELECT count(*) FROM added");
        try (JdbcLockRegistry lister = JdbcLockRegistry.builder(counting).notify(false).cleanupBatchSize(4)
                .cleanupInterval(Duration.ZERO).build()) {
            counting.reset();
            assertThat(lister.heldLocks(10)).extracting(HeldLock::key)
                    .containsExactlyElementsOf(IntStream.rangeClosed(1, 10).mapToObj(i -> "listed-%04d".formatted(i))
                            .toList());
            assertThat(lockStatements()).hasSize(3).allMatch(sql -> sql.contains(" LIMIT ?"));
        }
    }

    /**
     * Every statement but the listener's own (LISTEN, and its keep-alive probe after 5 s of silence) and the session
     * set-up of a connection as it opens (once per connection, not per call).
     */
    private List<String> lockStatements() {
        return counting.executed().stream().filter(sql -> !sql.startsWith("LISTEN ") && !sql.equals("SELECT 1")
                && !sql.equals(OwnConnections.SESSION))
                .toList();
    }
}
