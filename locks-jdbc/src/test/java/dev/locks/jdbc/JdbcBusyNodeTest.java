package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockUnavailableException;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A busy node is not an outage (SPEC section 7; issue 27, observation 4): 200 threads of one node cycling locks on
 * its two connections all get their turn (no {@link LockUnavailableException}), and 200 health pings meanwhile all
 * answer while the lock cycles go on (the ping neither queues behind the lock traffic nor stalls it).
 */
class JdbcBusyNodeTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final int THREADS = 200;
    private static final Duration BOUND = Duration.ofSeconds(240);

    private JdbcLockRegistry registry;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        // a short round-trip timeout: a caller that waits behind busy connections longer than it is not in an outage
        registry = JdbcLockRegistry.builder(postgres.dataSource()).initializeSchema(true).connections(2)
                .timeout(Duration.ofSeconds(2)).cleanupInterval(Duration.ZERO).build();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        registry.close();
    }

    @Test
    void twoHundredBusyThreadsAndTwoHundredHealthChecksShouldSeeNoOutage() throws Exception {
        AtomicInteger cycles = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        AcquireOptions patient = AcquireOptions.defaults().withWaitTime(Duration.ofSeconds(60));
        List<Future<?>> lockers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            String key = "busy-" + t; // its own key: every cycle is two round trips, all on two connections
            lockers.add(threads.submit(() -> {
                start.await();
                while (!stop.get()) {
                    try (Lease lease = registry.acquire(List.of(key), patient)) {
                        cycles.incrementAndGet();
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (cycles.get() < THREADS && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }

        int beforeHealth = cycles.get();
        AtomicInteger pings = new AtomicInteger();
        Queue<Throwable> down = new ConcurrentLinkedQueue<>();
        List<Future<?>> checks = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            checks.add(threads.submit(() -> {
                // health checks all along, until the locks cycled on meanwhile (or the bound ran out)
                for (int i = 0; i < 5 || (cycles.get() - beforeHealth < THREADS && System.nanoTime() < deadline); i++) {
                    try {
                        registry.ping();
                        pings.incrementAndGet();
                    } catch (RuntimeException e) {
                        down.add(e);
                    }
                }
            }));
        }
        for (Future<?> check : checks) {
            check.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
        int duringHealth = cycles.get() - beforeHealth;
        stop.set(true);
        for (Future<?> locker : lockers) {
            locker.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }

        assertThat(failures).as("no lock call of a busy node fails as an outage").isEmpty();
        assertThat(down).as("every health ping of a busy node answers").isEmpty();
        assertThat(pings.get()).isGreaterThanOrEqualTo(5 * THREADS);
        assertThat(duringHealth).as("lock cycles went on while the health checks ran")
                .isGreaterThanOrEqualTo(THREADS);
    }
}
