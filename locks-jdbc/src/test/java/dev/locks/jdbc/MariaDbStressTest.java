package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 21: 16 threads on two nodes over random subsets of 1 to 3 of 6 keys for 10 s on MariaDB. InnoDB's deadlock
 * victims, lock-wait timeouts and duplicate keys must stay inside the store: no exception but
 * {@link LockTimeoutException} reaches a caller, nothing is logged at WARNING or above, and every key's unguarded
 * counter counts exactly the leases that held it.
 */
class MariaDbStressTest {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension(MariaDbServer.Driver.MARIADB);

    @Test
    void sixteenThreadsOnTwoNodesShouldExcludeEachOtherWithoutSurfacingTheDatabasesConflicts() throws Exception {
        Logger library = Logger.getLogger("dev.locks");
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record.getLevel() + " " + record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        library.addHandler(handler);
        List<String> keys = List.of("k0", "k1", "k2", "k3", "k4", "k5");
        Map<String, long[]> unguarded = new ConcurrentHashMap<>();
        Map<String, AtomicLong> expected = new ConcurrentHashMap<>();
        Map<String, AtomicLong> inside = new ConcurrentHashMap<>();
        keys.forEach(key -> {
            unguarded.put(key, new long[1]);
            expected.put(key, new AtomicLong());
            inside.put(key, new AtomicLong());
        });
        AtomicLong overlaps = new AtomicLong();
        AtomicLong timeouts = new AtomicLong();
        List<Throwable> others = new CopyOnWriteArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try (JdbcLockRegistry a = JdbcLockRegistry.builder(mariadb.dataSource()).initializeSchema(true)
                .connections(4).cleanupInterval(Duration.ZERO).build();
                JdbcLockRegistry b = JdbcLockRegistry.builder(mariadb.dataSource()).connections(4)
                        .cleanupInterval(Duration.ZERO).build()) {
            AcquireOptions options = AcquireOptions.defaults().withInfiniteRetries().withWaitTime(Duration.ofSeconds(5));
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                JdbcLockRegistry node = t % 2 == 0 ? a : b;
                workers.add(threads.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() - end < 0) {
                        TreeSet<String> subset = new TreeSet<>();
                        int size = 1 + random.nextInt(3);
                        while (subset.size() < size) {
                            subset.add(keys.get(random.nextInt(keys.size())));
                        }
                        try (Lease lease = node.acquire(subset, options)) {
                            for (String key : subset) {
                                if (inside.get(key).incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                unguarded.get(key)[0]++;
                                expected.get(key).incrementAndGet();
                            }
                            for (String key : subset) {
                                inside.get(key).decrementAndGet();
                            }
                        } catch (LockTimeoutException e) {
                            timeouts.incrementAndGet();
                        } catch (Throwable e) {
                            others.add(e);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            library.removeHandler(handler);
        }
        long total = expected.values().stream().mapToLong(AtomicLong::get).sum();
        System.out.println("stress on MariaDB: " + total + " key holds in 10 s, " + timeouts + " timeouts");
        assertThat(others).as("only LockTimeoutException may reach a caller").isEmpty();
        assertThat(warnings).as("nothing logged at WARNING or above").isEmpty();
        assertThat(overlaps).hasValue(0);
        for (String key : keys) {
            assertThat(unguarded.get(key)[0]).as(key).isEqualTo(expected.get(key).get());
        }
        assertThat(total).isPositive();
    }
}
