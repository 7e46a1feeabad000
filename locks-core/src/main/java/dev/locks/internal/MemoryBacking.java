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

    MemoryBacking(LockTable table, LocksClock clock, LocksObserver observer, Listing listing) {
        this.table = table;
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
    public void await(Waiter waiter, int seen, long pauseNanos) {
        waiter.await(seen, pauseNanos);
    }

    @Override
    public void left(Waiter waiter) {
    }

    @Override
    public void release(TableLease lease) {
        for (LockEntry entry : lease.entries) {
            if (entry.isLost()) {
                observer.onLeaseLost(entry.key());
            }
            table.drop(entry);
        }
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
    public void close() {
    }
}
