package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.Remover;
import java.util.List;
import java.util.Optional;

/** Nothing behind the table: the in-memory backend, whose table in this JVM is the whole truth. */
final class MemoryBacking implements Backing {

    private final LockTable table;
    private final LocksClock clock;
    private final LocksObserver observer;
    private final Listing listing;
    private final Maintenance maintenance;

    MemoryBacking(LockTable table, LocksClock clock, LocksObserver observer, Listing listing,
            Maintenance maintenance) {
        this.table = table;
        this.maintenance = maintenance;
        this.clock = clock;
        this.observer = observer;
        this.listing = listing;
    }

    @Override
    public boolean allowsSoloLeases() {
        return true;
    }

    @Override
    public boolean queuesFirstAttempt(AcquireOptions options) {
        return false; // in memory a waiter costs nothing until it waits
    }

    @Override
    public String newOwnerId() {
        return null;
    }

    @Override
    public Blocker take(TableLease lease, long timeoutNanos, Waiter waiter, long waitNanos) {
        return null; // taken in the table is taken
    }

    @Override
    public void enlisted(Waiter waiter, int blockedAt, boolean local) {
    }

    @Override
    public boolean attemptsBlock() {
        return false; // a few map operations
    }

    @Override
    public long waitSliceNanos(Waiter waiter) {
        return Long.MAX_VALUE;
    }

    @Override
    public void refreshWaiting(Waiter waiter) {
    }

    @Override
    public void await(Waiter waiter, int seen, long pauseNanos) {
        waiter.await(seen, pauseNanos);
    }

    @Override
    public void left(Waiter waiter) {
    }

    @Override
    public boolean holdsAtLeast() {
        return true;
    }

    /**
     * Drops the lease's holds; a key whose last hold goes before its hold-at-least time stays in the table, held
     * over, and a timer on the maintenance thread frees it then (its waiters woken as by a release; an acquirer
     * that comes after that time frees it on the way, as any expired lock).
     */
    @Override
    public void release(TableLease lease) {
        for (LockEntry entry : lease.entries) {
            release(entry);
        }
    }

    /** Drops one hold of {@code entry}, as {@link #release(TableLease)} does for each of a lease's keys. */
    @Override
    public void release(LockEntry entry) {
        if (entry.isLost()) {
            observer.onLeaseLost(entry.key());
        }
        long until = table.holdUntilNanos(entry);
        if (until == 0) {
            table.drop(entry);
            return;
        }
        long now = clock.nanoTime();
        if (table.dropOrHoldOver(entry, until, now)) {
            endHoldOverAfter(entry, until - now);
        }
    }

    /** Frees the held-over {@code entry} after {@code delayNanos}, when its hold-at-least time has come. */
    void endHoldOverAfter(LockEntry entry, long delayNanos) {
        maintenance.after(delayNanos, () -> {
            long left = table.endHoldOver(entry, clock.nanoTime());
            if (left > 0) { // the clock is not the timer's (a test's), or the timer ran early
                endHoldOverAfter(entry, left);
            }
        });
    }

    @Override
    public void staleRemoved(LockEntry entry, Remover by) {
    }

    @Override
    public void renew(List<LockEntry> batch) {
        long now = clock.nanoTime();
        for (LockEntry entry : batch) {
            table.renew(entry, now, now);
        }
    }

    @Override
    public void covering(long timeoutNanos) {
    }

    @Override
    public String holderElsewhere(String key) {
        return null; // not held in the table: an older waiter's turn
    }

    @Override
    public List<HeldLock> heldLocks(int limit) {
        return listing.heldLocks(limit);
    }

    @Override
    public Optional<HeldLock> heldLock(String key) {
        return listing.heldLock(key);
    }

    @Override
    public void swept(List<LockEntry> removed) {
    }

    @Override
    public boolean forceRelease(String key, boolean removedHere) {
        return removedHere;
    }

    @Override
    public boolean holdsShared() {
        return true;
    }

    @Override
    public boolean sharesHolds() {
        return false;
    }

    @Override
    public boolean ordersOwnWaiters() {
        return true; // the queues are fair
    }

    @Override
    public Blocker olderTicket(String key, Waiter waiter) {
        return null; // no store: the fair queues order the waiters (LockEngine.olderWaiter)
    }

    @Override
    public Blocker takeShared(SharedLease lease, long timeoutNanos, Waiter waiter, long waitNanos) {
        return null; // joined in the groups is taken
    }

    @Override
    public void releaseShared(SharedLease lease) {
    }

    @Override
    public void renewShared(List<SharedLease> due) {
        long now = clock.nanoTime();
        for (SharedLease lease : due) {
            lease.renewIfDue(now);
        }
    }

    @Override
    public void close() {
    }
}
