package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.RemoteComputeStore.Claim;
import dev.locks.spi.RemoteComputeStore.Completion;
import dev.locks.spi.RemoteComputeStore.Miss;
import dev.locks.spi.RemoteComputeStore.Notice;
import java.nio.charset.StandardCharsets;
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

    private final List<String> notices = new CopyOnWriteArrayList<>();
    private final AtomicInteger claims = new AtomicInteger();
    private JdbcComputeStore store;

    @BeforeEach
    void newStore() throws SQLException {
        new Schema("locks_").initialize(postgres.dataSource());
        execute("TRUNCATE locks_value, locks_compute");
        store = new JdbcComputeStore(postgres.dataSource(), new Schema("locks_"), "app:", 2, 5_000);
        store.subscribe(notices::add);
        await().atMost(BOUND).until(() -> store.listenerConfirmations() == 1);
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

    /** Completes with {@code value} in UTF-8, publishing "VALUE", "NULL" or "UNSTORED" and the miss. */
    private static boolean complete(JdbcComputeStore store, String key, Ticket ticket, String value, Duration ttl) {
        String outcome = value == null ? "NULL " : "VALUE ";
        return store.complete(key, ticket, new Completion(value == null ? null : bytes(value), ttl, false,
                Duration.ZERO, outcome + ticket.miss(), (value == null ? "NULL " : "UNSTORED ") + ticket.miss()));
    }

    private boolean complete(String key, Ticket ticket, String value, Duration ttl) {
        return complete(store, key, ticket, value, ttl);
    }

    /** Fails with {@code error}'s class and message, publishing "FAILED", the miss and the class. */
    private boolean fail(String key, Ticket ticket, Throwable error) {
        return store.fail(key, ticket, error.getClass().getName(), error.getMessage(),
                "FAILED " + ticket.miss() + " " + error.getClass().getName());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
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
        assertThat(fail("k", first.ticket(), new IllegalStateException())).as("demoted").isFalse();
        expireLock("k");
        Claim.Compute fresh = (Claim.Compute) claim("k", "own hint", null);
        assertThat(fresh.miss()).isEqualTo(new Miss("miss-3", 0, "own hint", TTL.toMillis()));
        assertThat(complete("k", taken.ticket(), "late", null)).as("its miss ended").isFalse();
    }

    @Test
    void firstCompletionOfAMissShouldWinFromAnyOfItsComputers() throws SQLException {
        Claim.Compute first = (Claim.Compute) claim("k", "", null);
        expireLock("k");
        Claim.Compute second = (Claim.Compute) claim("k", "", first.miss());

        assertThat(complete("k", first.ticket(), "first", null)).isTrue();

        assertThat(complete("k", second.ticket(), "second", null)).isFalse();
        assertThat(fail("k", second.ticket(), new IllegalStateException())).isFalse();
        assertThat(store.get("k")).isEqualTo(bytes("first"));
        assertThat(query("SELECT extract(epoch FROM expires_at - stored_at) * 1000 FROM locks_value"
                + " WHERE value_key = 'app:k'")).as("the miss's TTL").isEqualTo(TTL.toMillis());
        assertThat(query("SELECT count(*) FROM locks_compute WHERE compute_key = 'app:k' AND state = 'done'"
                + " AND expires_at <= clock_timestamp() + interval '5 seconds'")).isEqualTo(1);
        assertThat(claim("k", "", null)).isInstanceOfSatisfying(Claim.Hit.class,
                hit -> assertThat(hit.value()).isEqualTo(bytes("first")));
    }

    @Test
    void waiterWhoseNoticeWasLostShouldStillLearnAFailureOrANullResult() throws SQLException {
        Claim.Compute failing = (Claim.Compute) claim("failing", "", null);
        Claim.Compute nothing = (Claim.Compute) claim("nothing", "", null);
        assertThat(fail("failing", failing.ticket(), new IOException("boom"))).isTrue();
        assertThat(complete("nothing", nothing.ticket(), null, null)).isTrue();

        assertThat(claim("failing", "", failing.miss()))
                .isEqualTo(new Claim.Done(Notice.Outcome.FAILED, null, "java.io.IOException", "boom"));
        assertThat(claim("nothing", "", nothing.miss()))
                .isEqualTo(new Claim.Done(Notice.Outcome.NULL, null, null, null));
        assertThat(query("SELECT count(*) FROM locks_value WHERE value_key = 'app:nothing'")).isZero();
        assertThat(claim("failing", "", null)).as("a new caller starts a new miss").isInstanceOf(Claim.Compute.class);
    }

    @Test
    void failureWithoutAMessageShouldCrossWithoutOne() {
        Claim.Compute turn = (Claim.Compute) claim("k", "", null);
        fail("k", turn.ticket(), new IllegalStateException());

        assertThat(claim("k", "", turn.miss()))
                .isEqualTo(new Claim.Done(Notice.Outcome.FAILED, null, "java.lang.IllegalStateException", null));
        await().atMost(BOUND).untilAsserted(() -> assertThat(notices).containsExactly(
                "FAILED miss-1 java.lang.IllegalStateException"));
    }

    @Test
    void waiterShouldStartANewMissWhenTheValueOfItsMissIsGone() throws SQLException {
        Claim.Compute turn = (Claim.Compute) claim("k", "", null);
        complete("k", turn.ticket(), "v", Duration.ZERO);
        assertThat(query("SELECT count(*) FROM locks_value WHERE value_key = 'app:k' AND expires_at IS NULL"))
                .as("no expiry").isEqualTo(1);

        store.invalidate("k", "INVALIDATED");

        assertThat(store.get("k")).isNull();
        assertThat(claim("k", "", turn.miss())).isInstanceOfSatisfying(Claim.Compute.class,
                fresh -> assertThat(fresh.miss().id()).isNotEqualTo(turn.miss().id()));
    }

    @Test
    void invalidationShouldSetTheMissInFlightAsideSoThatItsValueIsNotStored() {
        Claim.Compute old = (Claim.Compute) claim("k", "", null);

        store.invalidate("k", "INVALIDATED");

        Claim.Compute fresh = (Claim.Compute) claim("k", "", null);
        assertThat(fresh.miss().id()).isNotEqualTo(old.miss().id());
        assertThat(claim("k", "", old.miss())).as("its waiters still wait for it")
                .isInstanceOfSatisfying(Claim.Wait.class, wait -> assertThat(wait.miss()).isEqualTo(old.miss()));
        assertThat(complete("k", old.ticket(), "old", null)).isTrue();
        assertThat(store.get("k")).as("not stored").isNull();
        assertThat(store.invalidatedValue("k", old.miss().id())).isEqualTo(bytes("old"));
        assertThat(store.invalidatedValue("k", fresh.miss().id())).isNull();
        assertThat(claim("k", "", old.miss())).as("its waiters get its value").usingRecursiveComparison()
                .isEqualTo(new Claim.Done(Notice.Outcome.UNSTORED, bytes("old"), null, null));
        assertThat(complete("k", fresh.ticket(), "new", null)).isTrue();
        assertThat(store.get("k")).isEqualTo(bytes("new"));
        await().atMost(BOUND).untilAsserted(() -> assertThat(notices).containsExactly("INVALIDATED",
                "UNSTORED " + old.miss().id(), "VALUE " + fresh.miss().id()));
    }

    @Test
    void valueWrittenByAnyoneShouldBeReadAsItIsAndDiscardedOnlyIfStillTheSame() throws SQLException {
        execute("INSERT INTO locks_value VALUES ('app:k', '\\xdeadbeef', clock_timestamp(), NULL)");
        byte[] written = {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef};

        assertThat(store.get("k")).isEqualTo(written);
        assertThat(store.discard("k", bytes("other"))).isFalse();
        assertThat(store.discard("k", written)).isTrue();

        assertThat(query("SELECT count(*) FROM locks_value")).isZero();
        assertThat(claim("k", "", null)).as("a miss").isInstanceOf(Claim.Compute.class);
    }

    @Test
    void keysOfAnotherKeyPrefixShouldBeApartAndTheirNoticesIgnored() {
        try (JdbcComputeStore other = new JdbcComputeStore(postgres.dataSource(), new Schema("locks_"), "other:", 1,
                5_000)) {
            Claim.Compute theirs = (Claim.Compute) other.claim("k", new RemoteComputeStore.Claimant("c", "d", TIMEOUT,
                    "their-miss", "", TTL), null);
            complete(other, "k", theirs.ticket(), "theirs", null);
            Claim.Compute ours = (Claim.Compute) claim("k", "", null);
            complete("k", ours.ticket(), "ours", null);

            assertThat(other.get("k")).isEqualTo(bytes("theirs"));
            assertThat(store.get("k")).isEqualTo(bytes("ours"));
            await().atMost(BOUND).untilAsserted(() -> assertThat(notices)
                    .containsExactly("VALUE " + ours.miss().id()));
        }
    }

    @Test
    void concurrentClaimsOfOneKeyShouldMakeExactlyOneComputer() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (JdbcComputeStore wide = new JdbcComputeStore(postgres.dataSource(), new Schema("locks_"), "app:",
                threads, 5_000)) {
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
    void noticesUpToTheLimitTheStoreDeclaresShouldGoThroughWhileTheRecordKeepsTheWholeMessage() {
        Claim.Compute turn = (Claim.Compute) claim("long", "", null);
        String message = "é".repeat(10_000);
        String notice = "é".repeat(store.maxNoticeBytes() / 2 - 1);

        assertThat(store.fail("long", turn.ticket(), IllegalStateException.class.getName(), message, notice)).isTrue();

        assertThat(claim("long", "", turn.miss())).as("the record keeps it whole")
                .isEqualTo(new Claim.Done(Notice.Outcome.FAILED, null, IllegalStateException.class.getName(), message));
        await().atMost(BOUND).untilAsserted(() -> assertThat(notices).containsExactly(notice));
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
