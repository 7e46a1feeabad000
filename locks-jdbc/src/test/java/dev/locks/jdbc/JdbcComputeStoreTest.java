package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeFailedException;
import dev.locks.ComputeOutcome;
import dev.locks.internal.ComputeValues;
import dev.locks.internal.ComputeValues.Claim;
import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.spi.JdkValueSerializer;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.RemoteComputeStore.Miss;
import dev.locks.spi.RemoteComputeStore.Notice;
import dev.locks.spi.RemoteComputeStore.Ticket;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The functions' decisions, one by one (through the core's view of values), and what they leave in the tables; the
 * notices they send.
 */
class JdbcComputeStoreTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(1);
    private static final Duration BOUND = Duration.ofSeconds(30);

    private final List<Notice> notices = new CopyOnWriteArrayList<>();
    private final List<String> unreadable = new CopyOnWriteArrayList<>();
    private final AtomicInteger claims = new AtomicInteger();
    private JdbcComputeStore raw;
    private ComputeValues store;

    @BeforeEach
    void newStore() throws SQLException {
        new Schema("locks_").initialize(postgres.dataSource());
        execute("TRUNCATE locks_value, locks_compute");
        raw = new JdbcComputeStore(postgres.dataSource(), new Schema("locks_"), "app:", 2, 5_000);
        store = values(raw);
        store.subscribe(new ComputeValues.Listener() {
            @Override
            public void noticed(Notice notice) {
                notices.add(notice);
            }

            @Override
            public void unreadable(String key, Throwable cause) {
                unreadable.add(key);
            }
        });
        await().atMost(BOUND).until(() -> raw.listenerConfirmations() == 1);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private Claim claim(String key, String hint, Miss awaited) {
        int n = claims.incrementAndGet();
        return store.claim(key, new RemoteComputeStore.Claimant("computer-" + n, "thread-" + n + " @ node", TIMEOUT,
                "miss-" + n, hint, TTL), awaited);
    }

    /** The current computer's compute lock runs out now. */
    private static void expireLock(String key) throws SQLException {
        execute("UPDATE locks_compute SET expires_at = clock_timestamp() - interval '1 millisecond'"
                + " WHERE compute_key = 'app:" + key + "' AND NOT invalidated");
    }

    @Test
    void firstClaimShouldComputeAndTheNextWaitForIt() throws SQLException {
        Instant before = postgres.server().queryInstant("SELECT clock_timestamp()");
        Claim.Compute first = (Claim.Compute) claim("k", "first hint", null);

        assertThat(first.miss()).isEqualTo(new Miss("miss-1", 0, "first hint", TTL.toMillis()));
        assertThat(first.ticket()).isEqualTo(new Ticket("miss-1", 0, "computer-1"));
        assertThat(query("SELECT extract(epoch FROM expires_at - started_at) * 1000 FROM locks_compute"
                + " WHERE compute_key = 'app:k'")).as("the compute lock, by the database's clock")
                .isEqualTo(TIMEOUT.toMillis());
        Claim.Wait second = (Claim.Wait) claim("k", "second hint", null);
        assertThat(second.miss()).isEqualTo(first.miss());
        assertThat(second.computer()).isEqualTo("thread-1 @ node");
        assertThat(second.pttlMillis()).isBetween(1L, TIMEOUT.toMillis());
        assertThat(second.startedAt()).isAfterOrEqualTo(before)
                .isBeforeOrEqualTo(postgres.server().queryInstant("SELECT clock_timestamp()"));
    }

    @Test
    void waiterShouldTakeOverAnExpiredLockWithTheFirstHintWhileANewCallerStartsANewMiss() throws SQLException {
        Claim.Compute first = (Claim.Compute) claim("k", "first hint", null);
        expireLock("k");

        Claim.Compute taken = (Claim.Compute) claim("k", "own hint", first.miss());

        assertThat(taken.miss()).isEqualTo(new Miss("miss-1", 1, "first hint", TTL.toMillis()));
        assertThat(store.fail("node", "k", first.ticket(), new IllegalStateException())).as("demoted").isFalse();
        expireLock("k");
        Claim.Compute fresh = (Claim.Compute) claim("k", "own hint", null);
        assertThat(fresh.miss()).isEqualTo(new Miss("miss-3", 0, "own hint", TTL.toMillis()));
        assertThat(store.complete("node", "k", taken.ticket(), "late", null)).as("its miss ended").isFalse();
    }

    @Test
    void firstCompletionOfAMissShouldWinFromAnyOfItsComputers() throws SQLException {
        Claim.Compute first = (Claim.Compute) claim("k", "", null);
        expireLock("k");
        Claim.Compute second = (Claim.Compute) claim("k", "", first.miss());

        assertThat(store.complete("node", "k", first.ticket(), "first", null)).isTrue();

        assertThat(store.complete("node", "k", second.ticket(), "second", null)).isFalse();
        assertThat(store.fail("node", "k", second.ticket(), new IllegalStateException())).isFalse();
        assertThat(store.get("k")).isEqualTo("first");
        assertThat(query("SELECT extract(epoch FROM expires_at - stored_at) * 1000 FROM locks_value"
                + " WHERE value_key = 'app:k'")).as("the miss's TTL").isEqualTo(TTL.toMillis());
        assertThat(query("SELECT count(*) FROM locks_compute WHERE compute_key = 'app:k' AND state = 'done'"
                + " AND expires_at <= clock_timestamp() + interval '5 seconds'")).isEqualTo(1);
        assertThat(claim("k", "", null)).isEqualTo(new Claim.Hit("first"));
    }

    @Test
    void waiterWhoseNoticeWasLostShouldStillLearnAFailureOrANullResult() throws SQLException {
        Claim.Compute failing = (Claim.Compute) claim("failing", "", null);
        Claim.Compute nothing = (Claim.Compute) claim("nothing", "", null);
        assertThat(store.fail("node", "failing", failing.ticket(), new IOException("boom"))).isTrue();
        assertThat(store.complete("node", "nothing", nothing.ticket(), null, null)).isTrue();

        Claim.Done failed = (Claim.Done) claim("failing", "", failing.miss());
        Throwable error = ((ComputeOutcome.Failed) failed.outcome()).error();
        assertThat(error).isInstanceOfSatisfying(ComputeFailedException.class, e -> {
            assertThat(e.originalClassName()).isEqualTo("java.io.IOException");
            assertThat(e.originalMessage()).isEqualTo("boom");
        });
        assertThat(claim("nothing", "", nothing.miss())).isEqualTo(new Claim.Done(new ComputeOutcome.Value(null)));
        assertThat(query("SELECT count(*) FROM locks_value WHERE value_key = 'app:nothing'")).isZero();
        assertThat(claim("failing", "", null)).as("a new caller starts a new miss").isInstanceOf(Claim.Compute.class);
    }

    @Test
    void failureWithoutAMessageShouldCrossWithoutOne() {
        Claim.Compute turn = (Claim.Compute) claim("k", "", null);
        store.fail("node", "k", turn.ticket(), new IllegalStateException());

        Claim.Done done = (Claim.Done) claim("k", "", turn.miss());

        ComputeFailedException failed = (ComputeFailedException) ((ComputeOutcome.Failed) done.outcome()).error();
        assertThat(failed.originalMessage()).isNull();
        await().atMost(BOUND).untilAsserted(() -> assertThat(notices).containsExactly(
                new Notice("node", "k", "miss-1", Notice.Outcome.FAILED, "java.lang.IllegalStateException", null)));
    }

    @Test
    void waiterShouldStartANewMissWhenTheValueOfItsMissIsGone() throws SQLException {
        Claim.Compute turn = (Claim.Compute) claim("k", "", null);
        store.complete("node", "k", turn.ticket(), "v", Duration.ZERO);
        assertThat(query("SELECT count(*) FROM locks_value WHERE value_key = 'app:k' AND expires_at IS NULL"))
                .as("no expiry").isEqualTo(1);

        store.invalidate("node", "k");

        assertThat(store.get("k")).isNull();
        assertThat(claim("k", "", turn.miss())).isInstanceOfSatisfying(Claim.Compute.class,
                fresh -> assertThat(fresh.miss().id()).isNotEqualTo(turn.miss().id()));
    }

    @Test
    void invalidationShouldSetTheMissInFlightAsideSoThatItsValueIsNotStored() {
        Claim.Compute old = (Claim.Compute) claim("k", "", null);

        store.invalidate("node", "k");

        Claim.Compute fresh = (Claim.Compute) claim("k", "", null);
        assertThat(fresh.miss().id()).isNotEqualTo(old.miss().id());
        assertThat(claim("k", "", old.miss())).as("its waiters still wait for it")
                .isInstanceOfSatisfying(Claim.Wait.class, wait -> assertThat(wait.miss()).isEqualTo(old.miss()));
        assertThat(store.complete("node", "k", old.ticket(), "old", null)).isTrue();
        assertThat(store.get("k")).as("not stored").isNull();
        assertThat(store.invalidatedValue("k", old.miss().id())).isEqualTo("old");
        assertThat(store.invalidatedValue("k", fresh.miss().id())).isNull();
        assertThat(claim("k", "", old.miss())).as("its waiters get its value")
                .isEqualTo(new Claim.Done(new ComputeOutcome.Value("old")));
        assertThat(store.complete("node", "k", fresh.ticket(), "new", null)).isTrue();
        assertThat(store.get("k")).isEqualTo("new");
        await().atMost(BOUND).untilAsserted(() -> assertThat(notices).extracting(Notice::outcome).containsExactly(
                Notice.Outcome.INVALIDATED, Notice.Outcome.UNSTORED, Notice.Outcome.VALUE));
    }

    @Test
    void anUnreadableValueShouldBeRemovedReportedAndAMiss() throws SQLException {
        execute("INSERT INTO locks_value VALUES ('app:k', '\\xdeadbeef', clock_timestamp(), NULL)");

        assertThat(store.get("k")).isNull();
        assertThat(unreadable).containsExactly("k");
        assertThat(query("SELECT count(*) FROM locks_value")).isZero();

        execute("INSERT INTO locks_value VALUES ('app:k', '\\xdeadbeef', clock_timestamp(), NULL)");
        assertThat(claim("k", "", null)).as("a claim that finds it computes").isInstanceOf(Claim.Compute.class);
        assertThat(unreadable).containsExactly("k", "k");
    }

    @Test
    void keysOfAnotherKeyPrefixShouldBeApartAndTheirNoticesIgnored() {
        try (ComputeValues other = values(new JdbcComputeStore(postgres.dataSource(), new Schema("locks_"), "other:", 1,
                5_000))) {
            Claim.Compute theirs = (Claim.Compute) other.claim("k", new RemoteComputeStore.Claimant("c", "d", TIMEOUT,
                    "their-miss", "", TTL), null);
            other.complete("node", "k", theirs.ticket(), "theirs", null);
            Claim.Compute ours = (Claim.Compute) claim("k", "", null);
            store.complete("node", "k", ours.ticket(), "ours", null);

            assertThat(other.get("k")).isEqualTo("theirs");
            assertThat(store.get("k")).isEqualTo("ours");
            await().atMost(BOUND).untilAsserted(() -> assertThat(notices).extracting(Notice::miss)
                    .containsExactly(ours.miss().id()));
        }
    }

    @Test
    void concurrentClaimsOfOneKeyShouldMakeExactlyOneComputer() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (ComputeValues wide = values(new JdbcComputeStore(postgres.dataSource(), new Schema("locks_"), "app:",
                threads, 5_000))) {
            for (int round = 0; round < 20; round++) {
                String key = "race-" + round;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Claim>> claimed = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int n = claims.incrementAndGet();
                    claimed.add(pool.submit(() -> {
                        start.await();
                        return wide.claim(key, new RemoteComputeStore.Claimant("computer-" + n, "d", TIMEOUT,
                                "miss-" + n, "", TTL), null);
                    }));
                }
                start.countDown();
                List<Claim> all = new ArrayList<>();
                for (Future<Claim> each : claimed) {
                    all.add(each.get(BOUND.toSeconds(), TimeUnit.SECONDS));
                }
                assertThat(all).filteredOn(Claim.Compute.class::isInstance).hasSize(1);
                assertThat(all).filteredOn(Claim.Wait.class::isInstance).hasSize(threads - 1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aClaimMadeAgainByTheSameClaimantShouldComputeAgain() {
        RemoteComputeStore.Claimant claimant = new RemoteComputeStore.Claimant("computer-x", "d", TIMEOUT, "miss-x",
                "", TTL);
        Claim first = store.claim("k", claimant, null);

        assertThat(store.claim("k", claimant, null)).as("its first answer lost with its connection").isEqualTo(first);
    }

    @Test
    void noticesShouldStayWithinPostgresLimitWhateverTheMessage() {
        Claim.Compute turn = (Claim.Compute) claim("long", "", null);
        String message = "é".repeat(10_000);

        assertThat(store.fail("node", "long", turn.ticket(), new IllegalStateException(message))).isTrue();

        Claim.Done done = (Claim.Done) claim("long", "", turn.miss());
        assertThat(((ComputeFailedException) ((ComputeOutcome.Failed) done.outcome()).error()).originalMessage())
                .as("the record keeps it whole").isEqualTo(message);
        await().atMost(BOUND).untilAsserted(() -> assertThat(notices).singleElement().satisfies(notice -> {
            assertThat(notice.outcome()).isEqualTo(Notice.Outcome.FAILED);
            assertThat(message).startsWith(notice.message());
            assertThat(notice.message()).isNotEmpty();
        }));
    }

    /** The store as the core sees it: values through the default serializer. */
    private ComputeValues values(JdbcComputeStore of) {
        return new ComputeValues(of, JdkValueSerializer.withJdkTypes(getClass().getClassLoader(), List.of()));
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = postgres.server().connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static long query(String sql) throws SQLException {
        return postgres.server().queryLong(sql);
    }
}
