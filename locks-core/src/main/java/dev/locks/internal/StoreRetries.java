package dev.locks.internal;

import dev.locks.LockUnavailableException;
import dev.locks.LocksClock;
import dev.locks.spi.PartlyUnavailableException;
import dev.locks.spi.RemoteLockStore;
import dev.locks.spi.RemoteLockStore.Ownership;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * What could not reach the remote store and must not wait for a lease to run out (SPEC section 3, "A release
 * that could not reach the backend is retried in the background"): releases, the undo of an acquire that failed
 * part-way, and the removal of a waiter's ticket. Each is retried, with back-off, until it gets through or its
 * deadline passes (the lease's end, the ticket's expiry: the store has let go of it by then). The store's
 * release is conditional on the owner, and a ticket id is unique, so a late retry never frees what is someone
 * else's by then.
 *
 * <p>Everything pending goes in one pass on the engine's background thread: one store call for every pending
 * release, one per pending ticket, so that an outage costs that thread one round trip per pass, never one per
 * failed call. A store spread over shards ({@link PartlyUnavailableException}) keeps only what it could not
 * reach for the next pass.
 */
final class StoreRetries {

    private static final System.Logger LOG = System.getLogger(StoreRetries.class.getName());

    /** A release to retry until {@code deadlineNanos}: of an exclusive lock, or of a {@code shared} or counted place. */
    private record Release(Ownership ownership, long deadlineNanos, boolean shared) {
    }

    /** A ticket to take out of the queues of {@code keys} until {@code deadlineNanos}. */
    private record Removal(String ticketId, List<String> keys, long deadlineNanos) {
    }

    private final RemoteLockStore store;
    private final LocksClock clock;
    private final Maintenance maintenance;
    private final List<Release> releases = new ArrayList<>();
    private final List<Removal> removals = new ArrayList<>();
    private boolean scheduled;
    private long delayNanos = RemoteLocks.FIRST_RETRY_NANOS;

    StoreRetries(RemoteLockStore store, LocksClock clock, Maintenance maintenance) {
        this.store = store;
        this.clock = clock;
        this.maintenance = maintenance;
    }

    /** Releases {@code ownerships} later, until {@code deadlineNanos} (the lease's end). */
    synchronized void release(Collection<Ownership> ownerships, long deadlineNanos) {
        release(ownerships, deadlineNanos, false);
    }

    /** Releases shared or counted places ({@link RemoteLockStore#releaseShared}) later, until {@code deadlineNanos}. */
    synchronized void releaseShared(Collection<Ownership> ownerships, long deadlineNanos) {
        release(ownerships, deadlineNanos, true);
    }

    private void release(Collection<Ownership> ownerships, long deadlineNanos, boolean shared) {
        for (Ownership ownership : ownerships) {
            releases.add(new Release(ownership, deadlineNanos, shared));
        }
        schedule();
    }

    /** Takes {@code ticketId} out of the queues of {@code keys} later, until {@code deadlineNanos} (its expiry). */
    synchronized void dequeue(List<String> keys, String ticketId, long deadlineNanos) {
        if (!keys.isEmpty()) {
            removals.add(new Removal(ticketId, List.copyOf(keys), deadlineNanos));
            schedule();
        }
    }

    /** How many releases and ticket removals wait for a retry (tests). */
    synchronized int pending() {
        return releases.size() + removals.size();
    }

    private void schedule() {
        if (!scheduled && !maintenance.isClosed()) {
            scheduled = true;
            maintenance.after(delayNanos, this::pass);
        }
    }

    private void pass() {
        List<Release> due = new ArrayList<>();
        List<Removal> tickets = new ArrayList<>();
        synchronized (this) {
            scheduled = false;
            long now = clock.nanoTime();
            releases.stream().filter(release -> now - release.deadlineNanos() < 0).forEach(due::add);
            removals.stream().filter(removal -> now - removal.deadlineNanos() < 0).forEach(tickets::add);
            releases.clear();
            removals.clear();
        }
        boolean failed = false;
        for (boolean shared : new boolean[] {false, true}) {
            List<Release> some = due.stream().filter(release -> release.shared() == shared).toList();
            if (!some.isEmpty()) {
                failed |= !releaseLate(some, shared);
            }
        }
        for (Removal removal : tickets) {
            try {
                store.dequeue(removal.keys(), removal.ticketId());
            } catch (LockUnavailableException e) {
                failed = true;
                Set<String> unreached = unreached(e);
                List<String> left = unreached == null ? removal.keys()
                        : removal.keys().stream().filter(unreached::contains).toList();
                synchronized (this) {
                    if (!left.isEmpty()) {
                        removals.add(new Removal(removal.ticketId(), left, removal.deadlineNanos()));
                    }
                }
            }
        }
        synchronized (this) {
            delayNanos = failed ? Math.min(2 * delayNanos, RemoteLocks.MAX_RETRY_NANOS) : RemoteLocks.FIRST_RETRY_NANOS;
            if (!releases.isEmpty() || !removals.isEmpty()) {
                schedule();
            }
        }
    }

    /** Releases {@code due} in the store; when it fails, keeps those it did not reach for the next pass. */
    private boolean releaseLate(List<Release> due, boolean shared) {
        List<Ownership> ownerships = due.stream().map(Release::ownership).toList();
        try {
            if (shared) {
                store.releaseShared(ownerships);
            } else {
                store.release(ownerships);
            }
            LOG.log(Level.INFO, () -> "released " + Keys.describe(keys(due)) + " in the lock store, late");
            return true;
        } catch (LockUnavailableException e) {
            Set<String> unreached = unreached(e);
            synchronized (this) {
                due.stream().filter(release -> unreached == null
                        || unreached.contains(release.ownership().key())).forEach(releases::add);
            }
            return false;
        }
    }

    /** The keys a failure left in doubt: those a sharded store names, or null for every key. */
    static Set<String> unreached(RuntimeException e) {
        return e instanceof PartlyUnavailableException partly ? partly.unreached() : null;
    }

    private static List<String> keys(List<Release> releases) {
        return releases.stream().map(release -> release.ownership().key()).toList();
    }
}
