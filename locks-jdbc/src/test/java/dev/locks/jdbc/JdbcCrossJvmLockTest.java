package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Another JVM holds a lock and then dies: killed (SIGKILL), its lock frees itself after its lock timeout, or
 * after its lease when the lock timeout was infinite (nobody renews it any more), by the database's clock;
 * stopped (SIGTERM), its shutdown releases the lock at once.
 */
class JdbcCrossJvmLockTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(30);

    private JdbcLockRegistry here;
    private Process worker;

    @BeforeEach
    void setUp() {
        here = JdbcLockRegistry.builder(postgres.dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .build();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        if (worker != null) {
            worker.destroyForcibly().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
        here.close();
    }

    @Test
    void aKilledNodesLockShouldFreeItselfAfterItsLockTimeout() throws Exception {
        long token = hold("crashed", "1500", "30000");
        worker.destroyForcibly().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS);

        assertThat(here.tryAcquire(List.of("crashed"))).isEmpty(); // nobody released it: it is still live
        assertThat(takenWithin("crashed")).isGreaterThan(token);
    }

    @Test
    void aKilledNodesInfiniteLockShouldFreeItselfAfterItsLease() throws Exception {
        long token = hold("forever", "infinite", "1500");
        java.time.Instant firstExpiry = storedExpiry("forever");
        await().atMost(BOUND).until(() -> storedExpiry("forever").isAfter(firstExpiry)); // the worker renews it
        worker.destroyForcibly().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS);

        assertThat(here.tryAcquire(List.of("forever"))).isEmpty();
        assertThat(takenWithin("forever")).isGreaterThan(token);
    }

    @Test
    void aStoppedNodeShouldReleaseItsLockOnShutdown() throws Exception {
        long token = hold("graceful", "600000", "30000"); // would expire only after ten minutes
        worker.destroy(); // SIGTERM: the shutdown hook closes the registry
        assertThat(worker.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();

        try (Lease lease = here.tryAcquire(List.of("graceful")).orElseThrow()) {
            assertThat(lease.fencingToken()).isGreaterThan(token);
        }
    }

    /**
     * SPEC 13: every permit is a lease of its own: a killed node's permits free themselves after their lock timeout
     * (never leaked), by the database's clock, not before.
     */
    @Test
    void aKilledNodesPermitsShouldFreeThemselvesAfterTheirLockTimeout() throws Exception {
        AcquireOptions three = AcquireOptions.defaults().withPermits(3);
        long token = hold("tenant:7", "1500", "30000", "3", "2");
        Lease mine = here.tryAcquire(List.of("tenant:7"), three).orElseThrow();
        assertThat(here.heldLocks()).filteredOn(lock -> lock.key().equals("tenant:7")).hasSize(3);
        worker.destroyForcibly().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS);

        assertThat(here.tryAcquire(List.of("tenant:7"), three)).as("nobody released them: still live").isEmpty();
        List<Lease> freed = new ArrayList<>();
        await().atMost(BOUND).until(() -> {
            here.tryAcquire(List.of("tenant:7"), three).ifPresent(freed::add);
            return freed.size() == 2;
        });
        assertThat(freed).allSatisfy(lease -> assertThat(lease.fencingToken()).isGreaterThan(token));
        assertThat(here.heldLocks()).filteredOn(lock -> lock.key().equals("tenant:7")).hasSize(3);
        freed.forEach(Lease::close);
        mine.close();
    }

    /** Starts the worker JVM and waits until it holds {@code key}; its fencing token. */
    private long hold(String key, String lockTimeout, String lease, String... permits) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                JdbcLockWorker.class.getName(), postgres.server().jdbcUrl(), key, lockTimeout, lease));
        command.addAll(List.of(permits));
        worker = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (java.io.IOException e) {
                return null;
            }
        }).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(line).startsWith("HELD ");
        return Long.parseLong(line.substring("HELD ".length()));
    }

    private static java.time.Instant storedExpiry(String key) throws java.sql.SQLException {
        return postgres.server().queryInstant("SELECT expires_at FROM locks_lock WHERE lock_key = '" + key + "'");
    }

    private long takenWithin(String key) {
        long[] token = new long[1];
        await().atMost(BOUND).until(() -> here.tryAcquire(List.of(key)).map(lease -> {
            token[0] = lease.fencingToken();
            lease.close();
            return true;
        }).orElse(false));
        return token[0];
    }
}
