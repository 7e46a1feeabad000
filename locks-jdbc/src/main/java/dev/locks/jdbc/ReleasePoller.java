package dev.locks.jdbc;

import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A node's one poller for releases on a database without notifications: every poll interval, one query for the keys
 * released (on any node) since the previous one, each told to the node's waiters once. A query reads back a second
 * before the previous one's time, so that a release whose transaction committed a little after the time it recorded
 * is not missed; what was told already is not told again.
 *
 * <p>The first answered query, and the first after failures, confirm the subscription ({@code missed}: the engine
 * then has every waiter try again, since releases may have gone unseen meanwhile).
 */
final class ReleasePoller implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ReleasePoller.class.getName());
    /** How far back each query reads before the previous one's time: a committing release's delay. */
    static final long OVERLAP_MILLIS = 1_000;

    /** A key released at a time (the database's). */
    record Release(String key, LocalDateTime at) {
    }

    /** What one query read: the database's time and the releases. */
    record Batch(LocalDateTime now, List<Release> releases) {
    }

    /** One query: the releases after {@code since} ({@code null}: none, only the time). */
    @FunctionalInterface
    interface Source {
        Batch poll(LocalDateTime since) throws SQLException;
    }

    private final Source source;
    private final Consumer<String> released;
    private final Runnable missed;
    private final ScheduledExecutorService timer;
    private final Map<String, LocalDateTime> told = new HashMap<>();
    private LocalDateTime last;
    private boolean failing = true;
    private volatile int confirmations;

    ReleasePoller(long pollMillis, Source source, Consumer<String> released, Runnable missed) {
        this.source = source;
        this.released = released;
        this.missed = missed;
        this.timer = Executors.newSingleThreadScheduledExecutor(Daemons.named("locks-jdbc-poll"));
        timer.scheduleWithFixedDelay(this::poll, 0, pollMillis, TimeUnit.MILLISECONDS);
    }

    int confirmations() {
        return confirmations;
    }

    private void poll() {
        try {
            pollOnce();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "a waiter's wake-up failed: " + e);
        }
    }

    private void pollOnce() {
        Batch batch;
        try {
            batch = source.poll(last == null ? null : last.minus(OVERLAP_MILLIS, ChronoUnit.MILLIS));
        } catch (SQLException | RuntimeException e) {
            if (!failing) {
                failing = true;
                LOG.log(Level.INFO, () -> "could not poll for released locks (waiters fall back to their retry"
                        + " interval until it works again): " + e.getMessage());
            }
            return;
        }
        if (batch.now() == null) {
            return;
        }
        for (Release release : batch.releases()) {
            if (!release.at().equals(told.put(release.key(), release.at()))) {
                released.accept(release.key());
            }
        }
        last = batch.now();
        LocalDateTime forget = last.minus(2 * OVERLAP_MILLIS, ChronoUnit.MILLIS);
        told.values().removeIf(at -> at.isBefore(forget));
        if (failing) {
            failing = false;
            confirmations++;
            missed.run();
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
