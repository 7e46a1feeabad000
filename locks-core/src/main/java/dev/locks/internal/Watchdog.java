package dev.locks.internal;

import dev.locks.LocksClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Renews the locks of live owners, so that long work keeps its lock while a dead owner's lock still turns
 * stale after at most its lock timeout. One task walks the table every third of the shortest lock timeout
 * in use; a lock is renewed once a third of its timeout has passed since its last renewal. A lease handed to
 * async work (detached) is renewed like any other until it is closed (SPEC section 2: it is tied to no thread,
 * so its acquiring thread's end does not matter). Locks of dead owners, infinite locks and leases that ran out
 * are left alone: a lease that ran out is never renewed or revived (its key may be another owner's by now).
 */
final class Watchdog {

    /** Renews a batch of entries: in the table, and in the remote store where there is one. */
    @FunctionalInterface
    interface Renewer {
        void renew(List<LockEntry> batch, long nowNanos);
    }

    private static final long MIN_PERIOD_NANOS = 1_000_000L;

    private final LockTable table;
    private final LocksClock clock;
    private final Maintenance maintenance;
    private final Renewer renewer;
    private final int batchSize;
    private final AtomicLong periodNanos;
    private final AtomicInteger generation = new AtomicInteger();
    /** Renews what lives beside the table (the shared and counted leases), given the pass's reading of the clock. */
    private final LongConsumer others;

    Watchdog(LockTable table, LocksClock clock, Maintenance maintenance, Renewer renewer, int batchSize,
            long defaultTimeoutNanos, LongConsumer others) {
        this.others = others;
        this.table = table;
        this.clock = clock;
        this.maintenance = maintenance;
        this.renewer = renewer;
        this.batchSize = batchSize;
        this.periodNanos = new AtomicLong(periodFor(defaultTimeoutNanos));
    }

    void start() {
        int current = generation.get();
        maintenance.after(periodNanos.get(), () -> tick(current));
    }

    /** Makes sure locks with this timeout are renewed in time: shortens the period if needed. */
    void cover(long timeoutNanos) {
        long wanted = periodFor(timeoutNanos);
        long current = periodNanos.get();
        if (wanted < current && periodNanos.compareAndSet(current, wanted)) {
            int next = generation.incrementAndGet(); // the older chain of ticks stops at its next run
            maintenance.after(wanted, () -> tick(next));
        }
    }

    private void tick(int chain) {
        if (chain != generation.get()) {
            return;
        }
        try {
            renewLiveLocks();
        } finally {
            maintenance.after(periodNanos.get(), () -> tick(chain));
        }
    }

    /** One pass over the table, renewing in batches. */
    void renewLiveLocks() {
        long now = clock.nanoTime();
        List<LockEntry> batch = new ArrayList<>();
        for (LockEntry entry : table.entries()) {
            if (entry.timeoutNanos() != Long.MAX_VALUE && !entry.isLost() && !entry.isHeldOver() && entry.token() != 0
                    && !entry.isExpired(now) && (entry.isDetached() || entry.acquirer.isAlive())
                    && entry.expiresNanos() - now < entry.timeoutNanos() - entry.timeoutNanos() / 3) {
                batch.add(entry);
                if (batch.size() == batchSize) {
                    renewer.renew(batch, now);
                    batch = new ArrayList<>();
                }
            }
        }
        if (!batch.isEmpty()) {
            renewer.renew(batch, now);
        }
        others.accept(now);
    }

    private static long periodFor(long timeoutNanos) {
        return timeoutNanos == Long.MAX_VALUE ? 10_000_000_000L : Math.max(MIN_PERIOD_NANOS, timeoutNanos / 3);
    }
}
