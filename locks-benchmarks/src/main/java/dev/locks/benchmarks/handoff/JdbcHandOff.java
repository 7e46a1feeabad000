package dev.locks.benchmarks.handoff;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.benchmarks.jdbc.DatabasePool;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.Function;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * {@link HandOff} on PostgreSQL: two nodes (two registries, each its own client, on one pool and one server of the
 * harness's own) alternating on one key, timed from the holder's release to the other node's acquire. This
 * project's waiter is woken by the release's {@code NOTIFY} on its node's listening connection, or, with
 * {@code notify(false)}, polls at its retry interval (10 ms, jittered); Spring Integration's {@code JdbcLockRegistry}
 * polls every 100 ms (its default {@code idleBetweenTries}); ShedLock never waits, so its user retries, here
 * every 100 ms too. A polling waiter is released at a random moment of its interval. Prints {@code JdbcHandOff}
 * {@link dev.locks.benchmarks.report.ResultLine}s in µs.
 *
 * <p>On MariaDB (fourth argument {@code mariadb}; its lines' group {@code JdbcHandOff:db=mariadb}) there is no
 * {@code NOTIFY}: this project's waiter on the other node learns of the release from its node's poll of released
 * keys (every 100 ms, {@code pollInterval}) or its own retry (every 10 ms, jittered), whichever comes first; the
 * {@code notify(false)} row is the same there, so it is left out.
 *
 * <p>Arguments: {@code [trials] [passes per trial] [polling passes per trial] [postgresql|mariadb]}, default 5, 500,
 * 20, postgresql.
 */
public final class JdbcHandOff {

    static final String GROUP = "JdbcHandOff";
    private static final Duration POLL = Duration.ofMillis(100);

    private JdbcHandOff() {
    }

    public static void main(String[] args) throws Exception {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int passes = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        int pollingPasses = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        String db = args.length > 3 ? args[3] : DatabasePool.POSTGRESQL;
        boolean postgresql = DatabasePool.POSTGRESQL.equals(db);
        String group = postgresql ? GROUP : GROUP + ":db=" + db;
        try (DatabasePool postgres = DatabasePool.start(db)) {
            AcquireOptions waitForever = AcquireOptions.defaults().withInfiniteRetries();
            if (postgresql) {
                HandOff.measure(group, "thisProject", () -> thisProject(postgres, true, waitForever), trials, passes,
                        0);
                HandOff.measure(group, "thisProjectPolling", () -> thisProject(postgres, false, waitForever), trials,
                        pollingPasses, TimeUnit.MILLISECONDS.toNanos(20));
            } else {
                HandOff.measure(group, "thisProject", () -> thisProject(postgres, true, waitForever), trials,
                        pollingPasses, POLL.toNanos());
            }
            HandOff.measure(group, "springIntegration", () -> springIntegration(postgres), trials, pollingPasses,
                    POLL.toNanos());
            HandOff.measure(group, "shedLock", () -> shedLock(postgres), trials, pollingPasses, POLL.toNanos());
        }
    }

    private static Contender thisProject(DatabasePool postgres, boolean notify, AcquireOptions options) {
        List<dev.locks.jdbc.JdbcLockRegistry> nodes =
                List.of(postgres.thisProject(notify, options), postgres.thisProject(notify, options));
        List<String> keys = List.of(Contender.KEY);
        return new TwoNodes<>(nodes, node -> node.acquire(keys), handle -> ((Lease) handle).close(),
                () -> nodes.forEach(dev.locks.jdbc.JdbcLockRegistry::close));
    }

    private static Contender springIntegration(DatabasePool postgres) {
        List<Lock> nodes = List.of(postgres.springIntegration().obtain(Contender.KEY),
                postgres.springIntegration().obtain(Contender.KEY));
        return new TwoNodes<>(nodes, lock -> {
            lock.lock();
            return lock;
        }, handle -> ((Lock) handle).unlock(), () -> { });
    }

    private static Contender shedLock(DatabasePool postgres) {
        List<LockProvider> nodes = List.of(postgres.shedLock(), postgres.shedLock());
        return new TwoNodes<>(nodes, provider -> {
            while (true) {
                Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), Contender.KEY,
                        DatabasePool.LEASE, Duration.ZERO));
                if (lock.isPresent()) {
                    return lock.get();
                }
                try {
                    Thread.sleep(POLL.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }, handle -> ((SimpleLock) handle).unlock(), () -> { });
    }

    /**
     * Each duel's players on nodes of their own: {@link Duel} starts its first player and lets it take the lock
     * before it starts the second, so the threads that call {@link #lock()} alternate between the two nodes.
     */
    private static final class TwoNodes<N> implements Contender {
        private final List<N> nodes;
        private final Function<N, Object> lock;
        private final Consumer<Object> unlock;
        private final Runnable close;
        private final AtomicInteger threads = new AtomicInteger();
        private final ThreadLocal<N> node;

        TwoNodes(List<N> nodes, Function<N, Object> lock, Consumer<Object> unlock, Runnable close) {
            this.nodes = nodes;
            this.lock = lock;
            this.unlock = unlock;
            this.close = close;
            this.node = ThreadLocal.withInitial(() -> this.nodes.get(threads.getAndIncrement() % 2));
        }

        @Override
        public Object lock() {
            return lock.apply(node.get());
        }

        @Override
        public void unlock(Object handle) {
            unlock.accept(handle);
        }

        @Override
        public void close() {
            close.run();
        }
    }
}
