package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.Lease;
import dev.locks.LockUnavailableException;
import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults on MariaDB: the server killed and restarted (an outage: {@link LockUnavailableException}, then recovery
 * without a restart of the node), paused with SIGSTOP (an outage after the timeout, never a hang), and the
 * registry's connections killed by the server ({@code KILL}).
 */
class MariaDbOutageTest {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MARIADB);

    private static final Duration BOUND = Duration.ofSeconds(30);

    private JdbcLockRegistry registry;
    private JdbcLockRegistry other;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        registry = JdbcLockRegistry.builder(mariadb.dataSource()).initializeSchema(true)
                .timeout(Duration.ofSeconds(2)).cleanupInterval(Duration.ZERO).build();
        other = JdbcLockRegistry.builder(mariadb.dataSource()).timeout(Duration.ofSeconds(2))
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
    void aKilledServerShouldBeLockUnavailableAndTheRegistryShouldRecoverWithoutRestart() throws Exception {
        try (Lease lease = registry.acquire(List.of("before"))) {
            assertThat(lease.isHeld()).isTrue();
        }

        mariadb.server().stop();

        Future<?> acquire = threads.submit(() -> registry.acquire(List.of("during", "outage")));
        assertThat(acquire).failsWithin(BOUND).withThrowableThat().havingCause()
                .isInstanceOf(LockUnavailableException.class).withMessageContaining("acquire [during, outage]");
        assertThatThrownBy(() -> registry.tryAcquire(List.of("during"))).isInstanceOf(LockUnavailableException.class);
        assertThatThrownBy(registry::heldLocks).isInstanceOf(LockUnavailableException.class);
        assertThat(registry.heldCount()).isZero();
        assertThatThrownBy(registry::ping).isInstanceOf(LockUnavailableException.class);
        assertThat(registry.sweep()).isZero();

        mariadb.server().restart();

        await("the registry takes a key after the restart").atMost(BOUND)
                .ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> registry.tryAcquire(List.of("after")).map(lease -> {
                    lease.close();
                    return true;
                }).orElse(false));
        await("the release poller answers again").atMost(BOUND)
                .until(() -> registry.store().listenerConfirmations() == 2);
        registry.ping();
        try (Lease lease = registry.acquire(List.of("during", "outage"))) {
            assertThat(other.tryAcquire(List.of("outage"))).isEmpty();
        }
    }

    @Test
    void aServerThatStopsAnsweringShouldBeLockUnavailableAfterTheTimeout() throws Exception {
        registry.acquire(List.of("warm")).close();
        mariadb.server().pause();
        try {
            Future<?> acquire = threads.submit(() -> registry.acquire(List.of("paused")));
            assertThat(acquire).failsWithin(BOUND).withThrowableThat().havingCause()
                    .isInstanceOf(LockUnavailableException.class);
        } finally {
            mariadb.server().resume();
        }
        await().atMost(BOUND).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> registry.tryAcquire(List.of("after-pause")).map(lease -> {
                    lease.close();
                    return true;
                }).orElse(false));
        // the call that timed out may have taken "paused" when the server resumed: it is undone in the background
        await().atMost(BOUND).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> other.tryAcquire(List.of("paused")).map(lease -> {
                    lease.close();
                    return true;
                }).orElse(false));
    }

    @Test
    void connectionsKilledByTheServerShouldBeReplacedWithoutAFailedCall() throws Exception {
        registry.acquire(List.of("warm")).close();
        List<Long> ids = new ArrayList<>();
        try (Connection connection = mariadb.server().connect(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT ID FROM information_schema.PROCESSLIST"
                        + " WHERE DB = 'locks' AND ID <> CONNECTION_ID()")) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
            }
        }
        assertThat(ids).isNotEmpty();
        for (long id : ids) {
            mariadb.server().execute("KILL CONNECTION " + id);
        }

        for (int i = 0; i < 5; i++) {
            try (Lease lease = registry.acquire(List.of("after-kill-" + i))) {
                assertThat(other.tryAcquire(List.of("after-kill-" + i))).isEmpty();
            }
        }
        registry.ping();
    }
}
