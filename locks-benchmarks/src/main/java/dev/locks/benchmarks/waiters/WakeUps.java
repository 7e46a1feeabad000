package dev.locks.benchmarks.waiters;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.benchmarks.jdbc.DatabasePool;
import dev.locks.benchmarks.redis.CommandStats;
import dev.locks.benchmarks.redis.RedisNodes;
import dev.locks.benchmarks.redis.RedisServerProcess;
import dev.locks.jdbc.JdbcLockRegistry;
import dev.locks.jdbc.test.CountingDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * SPEC 8 (issue 24): what one acquisition costs the backend when many wait for one key. A node holds the key;
 * {@code n} asynchronous acquisitions ({@code acquireAsync}, no thread each) wait for it on two other nodes, with a
 * retry interval of minutes, so that only wake-ups make them try again; once all of them are queued the holder
 * releases, and each waiter, when it gets the key, releases it at once. Counted from the release until the last
 * waiter is done, divided by {@code n}: on Redis the script calls the server ran ({@code INFO commandstats}:
 * {@code evalsha}, {@code eval}, {@code fcall}) and its {@code PUBLISH}es; on a SQL database the statements the
 * nodes executed (counted by a proxy of the pool), without the release pollers' queries (MariaDB: one per node
 * every poll interval, whatever the waiters), which are reported apart.
 *
 * <p>Arguments: {@code <redis|postgresql|mariadb> [n ...]}, default {@code redis 10 100 1000}. Not a JMH
 * benchmark: a workload whose table goes into {@code docs/benchmarks.md}.
 */
public final class WakeUps {

    /** Only a wake-up makes a waiter try again: its retry interval is far beyond the run. */
    private static final AcquireOptions WOKEN_ONLY = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMinutes(5)).withWaitTime(Duration.ofMinutes(5));

    private WakeUps() {
    }

    /** What the release of one key to {@code waiters} waiting acquisitions cost. */
    record Row(int waiters, long calls, long publishes, long pollerQueries, long millis, int overlaps) {
    }

    public static void main(String[] args) throws Exception {
        String backend = args.length > 0 ? args[0] : "redis";
        List<Integer> sizes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            sizes.add(Integer.parseInt(args[i]));
        }
        if (sizes.isEmpty()) {
            sizes.addAll(List.of(10, 100, 1000));
        }
        List<Row> rows = new ArrayList<>();
        for (int n : sizes) {
            rows.add(switch (backend) {
                case "redis" -> onRedis(n);
                case DatabasePool.POSTGRESQL, DatabasePool.MARIADB -> onDatabase(backend, n);
                default -> throw new IllegalArgumentException("no such backend: " + backend);
            });
        }
        boolean redis = backend.equals("redis");
        System.out.println("| waiters | " + (redis ? "script calls" : "statements") + " per acquisition | "
                + (redis ? "`PUBLISH` per acquisition" : "pollers' queries (all)")
                + " | all served after | overlaps |");
        System.out.println("| ---: | ---: | ---: | ---: | ---: |");
        for (Row row : rows) {
            System.out.printf(Locale.ROOT, "| %,d | %.2f | %s | %,d ms | %d |%n", row.waiters(),
                    (double) row.calls() / row.waiters(),
                    redis ? String.format(Locale.ROOT, "%.2f", (double) row.publishes() / row.waiters())
                            : Long.toString(row.pollerQueries()),
                    row.millis(), row.overlaps());
        }
    }

    private static Row onRedis(int n) throws Exception {
        try (RedisServerProcess server = RedisServerProcess.start();
                RedisNodes nodes = new RedisNodes(server.port(), 3)) {
            LongSupplier scripts = () -> {
                CommandStats stats = CommandStats.parse(server.info("commandstats"));
                return stats.calls().getOrDefault("evalsha", 0L) + stats.calls().getOrDefault("eval", 0L)
                        + stats.calls().getOrDefault("fcall", 0L);
            };
            LongSupplier publishes = () -> CommandStats.parse(server.info("commandstats")).calls()
                    .getOrDefault("publish", 0L);
            return run(n, nodes.registries(), scripts, publishes, () -> 0);
        }
    }

    private static Row onDatabase(String db, int n) throws Exception {
        try (DatabasePool pool = DatabasePool.start(db)) {
            CountingDataSource counted = new CountingDataSource(pool.dataSource());
            LongSupplier pollers = counted::executedByPollers;
            List<JdbcLockRegistry> nodes = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    nodes.add(JdbcLockRegistry.builder((DataSource) counted).initializeSchema(i == 0)
                            .cleanupInterval(Duration.ZERO).build());
                }
                return run(n, nodes, () -> counted.executed().size() - pollers.getAsLong(), () -> 0, pollers);
            } finally {
                nodes.forEach(JdbcLockRegistry::close);
            }
        }
    }

    private static Row run(int n, List<? extends LockRegistry> nodes, LongSupplier calls, LongSupplier publishes,
            LongSupplier pollerQueries) throws Exception {
        LockRegistry holder = nodes.get(0);
        Lease held = holder.acquire(List.of("k"));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> waiting = new ArrayList<>(n);
        long queuedFrom = calls.getAsLong();
        for (int i = 0; i < n; i++) {
            waiting.add(nodes.get(1 + i % 2).acquireAsync(List.of("k"), WOKEN_ONLY).thenAccept(lease -> {
                try (lease) {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    inside.decrementAndGet();
                }
            }));
        }
        // every waiter made its first attempt and is queued: the store's calls stop (a node's waiters behind its own
        // older ticket wait in its memory, without a call each, so the calls need not reach n)
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        long seen = -1;
        for (long now = calls.getAsLong(); now != seen || now == queuedFrom; now = calls.getAsLong()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the waiters did not all queue within 2 minutes");
            }
            seen = now;
            Thread.sleep(500);
        }
        long callsBefore = calls.getAsLong();
        long publishesBefore = publishes.getAsLong();
        long pollsBefore = pollerQueries.getAsLong();
        long start = System.nanoTime();
        held.close();
        CompletableFuture.allOf(waiting.toArray(new CompletableFuture<?>[0])).get(5, TimeUnit.MINUTES);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Row row = new Row(n, calls.getAsLong() - callsBefore, publishes.getAsLong() - publishesBefore,
                pollerQueries.getAsLong() - pollsBefore, millis, overlaps.get());
        System.out.printf(Locale.ROOT, "# %d waiters: %d calls, %d publishes, %d poller queries, %d ms, %d overlaps%n",
                n, row.calls(), row.publishes(), row.pollerQueries(), millis, row.overlaps());
        return row;
    }
}
