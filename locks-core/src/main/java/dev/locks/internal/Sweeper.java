package dev.locks.internal;

import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.Remover;
import java.util.ArrayList;
import java.util.List;

/**
 * The sweep of {@link dev.locks.LockRegistry#sweep()}: removes this node's stale locks from the table in
 * batches, each judged against one reading of the clock, without stopping acquirers, and hands each batch's
 * removed entries to the backing (which frees them in a remote store).
 */
final class Sweeper {

    private final LockTable table;
    private final LocksClock clock;
    private final LocksObserver observer;
    private final int batchSize;
    private final Backing backing;

    Sweeper(LockTable table, LocksClock clock, LocksObserver observer, int batchSize, Backing backing) {
        this.table = table;
        this.clock = clock;
        this.observer = observer;
        this.batchSize = batchSize;
        this.backing = backing;
    }

    /** One sweep of the whole table; returns how many locks it removed. */
    int sweep() {
        long start = clock.nanoTime();
        int[] removed = {0};
        table.inBatches(batchSize, entry -> true, batch -> removed[0] += sweep(batch));
        observer.onSweep(removed[0], clock.nanoTime() - start);
        return removed[0];
    }

    private int sweep(List<LockEntry> batch) {
        long now = clock.nanoTime();
        List<LockEntry> removed = new ArrayList<>();
        for (LockEntry entry : batch) {
            if (entry.staleReason(now) != null && table.removeIfStale(entry, now, Remover.SWEEP)) {
                removed.add(entry);
            }
        }
        backing.swept(removed);
        return removed.size();
    }
}
