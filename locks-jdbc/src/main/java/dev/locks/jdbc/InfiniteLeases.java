package dev.locks.jdbc;

import dev.locks.LockUnavailableException;
import dev.locks.spi.RemoteLockStore.Ownership;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The locks of this node taken with an infinite lock timeout. None is written without expiry: each is stored
 * with a lease ({@code locks.jdbc.lease}, 30 s by default) that this keeper renews every third of it, whether
 * or not the watchdog is on, until it is released. A node that crashes stops renewing, and its "infinite"
 * locks free themselves after at most one lease. A renewal that cannot reach the database is tried again at
 * the next third; a lock found lost (the lease ran out during a longer outage and someone else took it) is
 * logged and no longer renewed.
 */
final class InfiniteLeases implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(InfiniteLeases.class.getName());

    private final long leaseMillis;
    private final Function<List<Ownership>, Set<String>> renewer;
    private final Set<Ownership> kept = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer;

    /** @param renewer renews a batch in the store and returns the keys their owner no longer held */
    InfiniteLeases(long leaseMillis, Function<List<Ownership>, Set<String>> renewer) {
        this.leaseMillis = leaseMillis;
        this.renewer = renewer;
        this.timer = Executors.newSingleThreadScheduledExecutor(Daemons.named("locks-jdbc-lease"));
        long period = Math.max(1, leaseMillis / 3);
        timer.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
    }

    long leaseMillis() {
        return leaseMillis;
    }

    /** Starts renewing {@code keys} of {@code ownerId}, just taken. */
    void keep(List<String> keys, String ownerId) {
        for (String key : keys) {
            kept.add(new Ownership(key, ownerId, leaseMillis));
        }
    }

    /** Stops renewing these (released, or being released). */
    void forget(List<Ownership> keys) {
        for (Ownership ownership : keys) {
            kept.remove(new Ownership(ownership.key(), ownership.ownerId(), leaseMillis));
        }
    }

    /** One pass (the timer's; tests call it directly). */
    void renewAll() {
        List<Ownership> batch = new ArrayList<>(kept);
        if (batch.isEmpty()) {
            return;
        }
        try {
            Set<String> lost = renewer.apply(batch);
            for (Ownership ownership : batch) {
                if (lost.contains(ownership.key()) && kept.remove(ownership)) {
                    LOG.log(Level.WARNING, () -> "the lock on '" + ownership.key() + "' (infinite lock timeout) ran"
                            + " out of its lease of " + leaseMillis + " ms before it could be renewed");
                }
            }
        } catch (LockUnavailableException e) {
            LOG.log(Level.WARNING, () -> "could not renew " + batch.size() + " locks of infinite lock timeout;"
                    + " trying again in " + leaseMillis / 3 + " ms: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "renewing locks of infinite lock timeout failed", e);
        }
    }

    /** Stops renewing; the engine releases the locks. */
    @Override
    public void close() {
        timer.shutdownNow();
        kept.clear();
    }
}
