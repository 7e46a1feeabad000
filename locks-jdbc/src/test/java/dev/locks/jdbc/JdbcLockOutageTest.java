package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The database stops (pg_ctl stop -m immediate: every backend ends at once, as in a crash) and comes back: in
 * between, calls fail with {@link LockUnavailableException} (never a {@link LockTimeoutException}, never a hang);
 * afterwards the same registry works again, and listens again, without a restart.
 */
class JdbcLockOutageTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(30);

    private JdbcLockRegistry registry;
    private JdbcLockRegistry other;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        registry = JdbcLockRegistry.builder(postgres.dataSource()).initializeSchema(true)
                .timeout(Duration.ofSeconds(2)).cleanupInterval(Duration.ZERO).build();
        other = JdbcLockRegistry.builder(postgres.dataSource()).timeout(Duration.ofSeconds(2))
                .cleanupInterval(Duration.ZERO).build();
        await().atMost(BOUND).until(() -> registry.store().listenerConfirmations() == 1);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        registry.close();
        other.close();
    }

    @Test
    void anOutageShouldBeLockUnavailableAndTheRegistryShouldRecoverWithoutRestart() throws Exception {
        try (Lease lease = registry.acquire(List.of("before"))) {
            assertThat(lease.isHeld()).isTrue();
        }

        postgres.server().stop();

        Future<?> acquire = threads.submit(() -> registry.acquire(List.of("during", "outage")));
        assertThat(acquire).failsWithin(BOUND).withThrowableThat().havingCause()
                .isInstanceOf(LockUnavailableException.class).withMessageContaining("acquire [during, outage]");
        assertThatThrownBy(() -> registry.tryAcquire(List.of("during"))).isInstanceOf(LockUnavailableException.class);
        assertThatThrownBy(registry::heldLocks).isInstanceOf(LockUnavailableException.class);
        assertThat(registry.heldCount()).isZero(); // nothing half-taken in this node's memory
        assertThatThrownBy(registry::ping).isInstanceOf(LockUnavailableException.class);
        assertThat(registry.sweep()).isZero(); // logged, not thrown: the scheduled sweeper goes on

        postgres.server().restart();

        await().atMost(BOUND).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> registry.tryAcquire(List.of("after")).map(lease -> {
                    lease.close();
                    return true;
                }).orElse(false));
        await().atMost(BOUND).until(() -> registry.store().listenerConfirmations() == 2); // listening again
        registry.ping();
        try (Lease lease = registry.acquire(List.of("during", "outage"))) {
            assertThat(other.tryAcquire(List.of("outage"))).isEmpty();
        }
    }

    /**
     * A permit closed while the database is down is released in the background once it is back, as an exclusive
     * lock is: other nodes need not wait for its lock timeout (five minutes here).
     */
    @Test
    void aPermitClosedDuringAnOutageShouldBeReleasedOnceTheDatabaseIsBack() throws Exception {
        AcquireOptions two = AcquireOptions.defaults().withPermits(2).withLockTimeout(Duration.ofMinutes(5));
        Lease first = registry.acquire(List.of("tenant:5"), two);
        Lease second = registry.acquire(List.of("tenant:5"), two);
        assertThat(other.tryAcquire(List.of("tenant:5"), two)).isEmpty();

        postgres.server().stop();
        first.close(); // logged, and retried in the background
        postgres.server().restart();

        Lease freed = await().pollInSameThread().atMost(BOUND)
                .ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> other.tryAcquire(List.of("tenant:5"), two), Optional::isPresent).orElseThrow();
        assertThat(other.tryAcquire(List.of("tenant:5"), two)).as("the other permit still held").isEmpty();
        freed.close();
        second.close();
    }

    /**
     * A registry that made no call during the outage still holds connections that died with the server: its
     * first call afterwards runs again on a new connection instead of failing.
     */
    @Test
    void aRegistryIdleDuringAnOutageShouldWorkAtItsFirstCallAfterIt() {
        try (JdbcLockRegistry quiet = JdbcLockRegistry.builder(postgres.dataSource()).notify(false)
                .cleanupInterval(Duration.ZERO).build()) {
            quiet.acquire(List.of("warm")).close();
            assertThat(quiet.store().connections().idleCount()).isPositive();

            postgres.server().stop();
            postgres.server().restart();

            try (Lease lease = quiet.acquire(List.of("first-call"))) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }

    /**
     * A server that stops answering (every process of it paused with SIGSTOP: sockets stay open, nothing
     * replies) is an outage after the registry's timeout (2 s here), never a hang; once it runs again, so does
     * the registry.
     */
    @Test
    void aServerThatStopsAnsweringShouldBeLockUnavailableAfterTheTimeout() throws Exception {
        registry.acquire(List.of("warm")).close();
        postgres.server().pause();
        try {
            Future<?> acquire = threads.submit(() -> registry.acquire(List.of("paused")));
            assertThat(acquire).failsWithin(BOUND).withThrowableThat().havingCause()
                    .isInstanceOf(LockUnavailableException.class);
        } finally {
            postgres.server().resume();
        }
        // (not "paused" itself: the call that timed out may still run when the server resumes, and take it
        // until its lock timeout, if the release sent after it ran first)
        await().atMost(BOUND).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> registry.tryAcquire(List.of("after-pause")).map(lease -> {
                    lease.close();
                    return true;
                }).orElse(false));
    }

    /** After an outage, a waiter on another node is woken by a release notice again (not only by polling). */
    @Test
    void afterAnOutageWaitersShouldBeWokenByNoticesAgain() throws Exception {
        postgres.server().stop();
        postgres.server().restart();
        await().atMost(BOUND).until(() -> registry.store().listenerConfirmations() == 2);
        await().atMost(BOUND).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> other.tryAcquire(List.of("warm-up")).map(lease -> {
                    lease.close();
                    return true;
                }).orElse(false));
        Lease held = other.acquire(List.of("hand-off"));
        AcquireOptions sleepy = AcquireOptions.defaults().withInfiniteRetries()
                .withRetryInterval(Duration.ofMinutes(1)).withWaitTime(Duration.ofMinutes(5));
        Future<Long> taken = threads.submit(() -> {
            try (Lease lease = registry.acquire(List.of("hand-off"), sleepy)) {
                return lease.fencingToken();
            }
        });
        await().atMost(BOUND).until(() -> registry.heldLock("hand-off").isPresent() && waited());

        held.close();

        assertThat(taken.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
    }

    private static boolean waited() throws Exception {
        return postgres.server().queryLong("SELECT count(*) FROM locks_lock WHERE waited") == 1;
    }
}
