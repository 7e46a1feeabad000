package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.Remover;
import dev.locks.spi.RemoteLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A remote store behind the table, for a distributed backend: the table holds this node's locks (threads of
 * one node contend in memory; re-entry costs no round trip), and a lease takes the keys that are new in the
 * table in the store in one round trip, whose fencing token it gets. Releases, renewals and the removal of a
 * dead owner's locks go to the store too; waiters for keys held on other nodes are woken by the store's
 * release notifications, and keep their place in the store's queues meanwhile.
 */
final class StoreBacking implements Backing {

    private final RemoteLocks remote;
    private final LockTable table;
    private final LocksClock clock;
    private final LocksObserver observer;
    private final Maintenance maintenance;
    private final int batchSize;
    private final AtomicBoolean keeping = new AtomicBoolean();

    private final boolean holdsAtLeast;
    private final boolean holdsShared;
    private final boolean ordersOwnWaiters;

    StoreBacking(RemoteLockStore store, WaitQueues queues, LockTable table, LocksClock clock, LocksObserver observer,
            Maintenance maintenance, int batchSize, String application) {
        this.remote = new RemoteLocks(store, clock, maintenance, queues, application);
        this.holdsAtLeast = store.holdsAtLeast();
        this.holdsShared = store.holdsShared();
        this.ordersOwnWaiters = store.queuesOwnWaiters();
        this.table = table;
        this.clock = clock;
        this.observer = observer;
        this.maintenance = maintenance;
        this.batchSize = batchSize;
    }

    @Override
    public boolean allowsSoloLeases() {
        return false; // every lease needs an owner in the store
    }

    @Override
    public boolean queuesFirstAttempt(AcquireOptions options) {
        // its first attempt already queues it in the store (and a release tells its node)
        return options.allowsRetryAfter(0);
    }

    @Override
    public String newOwnerId() {
        return remote.newOwnerId();
    }

    @Override
    public Blocker take(TableLease lease, long timeoutNanos, Waiter waiter, long waitNanos) {
        return remote.take(lease, timeoutNanos, waiter, waitNanos);
    }

    /** When this node's table was in the way, the store gets the waiter's ticket now. */
    @Override
    public void enlisted(Waiter waiter, int blockedAt, boolean local) {
        if (local) {
            remote.enqueue(waiter, List.of(waiter.keys).subList(0, blockedAt + 1));
        }
    }

    @Override
    public boolean attemptsBlock() {
        return true; // a round trip
    }

    /** A waiter's ticket in the store, if it has one, is refreshed once a third of its lease has passed. */
    @Override
    public long waitSliceNanos(Waiter waiter) {
        return waiter.remoteKeys.isEmpty() ? Long.MAX_VALUE : RemoteLocks.TICKET_REFRESH_NANOS;
    }

    @Override
    public void refreshWaiting(Waiter waiter) {
        remote.refresh(waiter);
    }

    /** Parks in slices, refreshing the waiter's ticket in the store between them. */
    @Override
    public void await(Waiter waiter, int seen, long pauseNanos) {
        long deadline = System.nanoTime() + pauseNanos;
        for (;;) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || waiter.signals() != seen) {
                return;
            }
            if (waiter.await(seen, Math.min(left, RemoteLocks.TICKET_REFRESH_NANOS))) {
                return;
            }
            refreshWaiting(waiter);
        }
    }

    @Override
    public void left(Waiter waiter) {
        remote.dequeue(waiter);
    }

    @Override
    public boolean holdsAtLeast() {
        return holdsAtLeast;
    }

    /**
     * The keys whose last hold went are released in the store first (one round trip), then in the table, so
     * that a local waiter woken by the table finds the key free in the store too. Keys released before their
     * hold-at-least time stay locked in the store until then, by its clock ({@link RemoteLocks#releaseHeld}), and
     * leave the table at once: this node's acquirers, the closing thread included, meet them in the store as
     * they would a lock of another node, and this node renews them no more.
     */
    @Override
    public void release(TableLease lease) {
        List<LockEntry> last = new ArrayList<>(lease.entries.length);
        for (LockEntry entry : lease.entries) {
            if (entry.isLost()) {
                observer.onLeaseLost(entry.key());
            }
            if (entry.dropHold() == 0) {
                last.add(entry);
            }
        }
        List<LockEntry> stillOurs = last.stream().filter(entry -> !entry.isLost()).toList();
        boolean holding = false;
        for (LockEntry entry : stillOurs) {
            holding |= table.holdUntilNanos(entry) != 0;
        }
        try {
            Set<String> lost = holding ? remote.releaseHeld(stillOurs, table) : remote.release(stillOurs);
            for (LockEntry entry : stillOurs) {
                if (lost.contains(entry.key())) {
                    observer.onLeaseLost(entry.key());
                }
            }
        } finally { // whatever the store threw: a closed lease's entries never stay in the table (nor renewed)
            last.forEach(table::removeReleased);
        }
    }

    @Override
    public boolean holdsShared() {
        return holdsShared;
    }

    @Override
    public boolean sharesHolds() {
        return true;
    }

    @Override
    public boolean ordersOwnWaiters() {
        return ordersOwnWaiters;
    }

    @Override
    public Blocker olderTicket(String key, Waiter waiter) {
        return remote.olderTicket(key, waiter);
    }

    @Override
    public Blocker takeShared(SharedLease lease, long timeoutNanos, Waiter waiter, long waitNanos) {
        return remote.takeShared(lease, timeoutNanos, waiter, waitNanos);
    }

    /** In the store first, so that a local waiter woken by the groups finds the place free there too. */
    @Override
    public void releaseShared(SharedLease lease) {
        for (String key : remote.releaseShared(List.of(lease))) {
            observer.onLeaseLost(key);
        }
    }

    @Override
    public void renewShared(List<SharedLease> due) {
        remote.renewShared(due);
    }

    /** One hold of a re-entered entry: its last one releases it, in the store first, as a lease's release does. */
    @Override
    public void release(LockEntry entry) {
        if (entry.isLost()) {
            observer.onLeaseLost(entry.key());
        }
        if (entry.dropHold() == 0) {
            try {
                if (!entry.isLost()) {
                    for (String key : remote.release(List.of(entry))) {
                        observer.onLeaseLost(key);
                    }
                }
            } finally {
                table.removeReleased(entry);
            }
        }
    }

    /** An acquirer removed a stale entry that was taken in the store: it is freed there. */
    @Override
    public void staleRemoved(LockEntry entry, Remover by) {
        if (by == Remover.ACQUIRE && entry.token() != 0) {
            remote.release(List.of(entry));
        }
    }

    /** In the store first; each lease moves forward only as far as the store confirmed it. */
    @Override
    public void renew(List<LockEntry> batch) {
        remote.renew(batch, table);
    }

    /**
     * With a store that holds infinite lock timeouts under a lease, starts renewing them (once, on the first
     * acquire that asks for one), every third of the lease.
     */
    @Override
    public void covering(long timeoutNanos) {
        if (timeoutNanos == Long.MAX_VALUE && remote.infiniteLeaseMillis() > 0 && keeping.compareAndSet(false, true)) {
            maintenance.every(Duration.ofMillis(Math.max(1, remote.infiniteLeaseMillis() / 3)), this::keepInfinite);
        }
    }

    /**
     * Renews in the store the locks of infinite lock timeout that live owners hold, under the store's lease,
     * every third of it whether or not the watchdog is on; a dead owner's lock is left to expire after the lease.
     * Their leases too are only as long as the store confirmed them (the table holds them under the store's
     * lease): a lock whose store lease ran out unconfirmed is no longer held, since another node may take it.
     */
    private void keepInfinite() {
        table.inBatches(batchSize, entry -> entry.timeoutNanos() == Long.MAX_VALUE && entry.token() != 0
                && !entry.isLost() && (entry.isDetached() || entry.acquirer.isAlive()),
                batch -> remote.renew(batch, table));
    }

    @Override
    public String holderElsewhere(String key) {
        try {
            return heldLock(key).map(lock -> lock.owner() + " since " + lock.acquiredAt()).orElse(null);
        } catch (RuntimeException e) {
            return "another node";
        }
    }

    /** Every node's locks, read from the store in batches. */
    @Override
    public List<HeldLock> heldLocks(int limit) {
        return remote.heldLocks(batchSize, limit, table);
    }

    @Override
    public Optional<HeldLock> heldLock(String key) {
        return remote.heldLock(key, table);
    }

    @Override
    public void swept(List<LockEntry> removed) {
        remote.release(removed.stream().filter(entry -> entry.token() != 0).toList());
    }

    /** On whatever node holds it. */
    @Override
    public boolean forceRelease(String key, boolean removedHere) {
        return remote.forceRelease(key) || removedHere;
    }

    /**
     * Releases this node's locks in the store (the watchdog has stopped: a renewal after the release would
     * resurrect a lock), so that other nodes need not wait for them to expire, then closes the store.
     */
    @Override
    public void close() {
        table.inBatches(batchSize, entry -> entry.token() != 0 && !entry.isLost() && table.forceRemove(entry.key()),
                remote::release);
        remote.close();
    }
}
