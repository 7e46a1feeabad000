package dev.locks.internal;

import dev.locks.HeldLock;
import dev.locks.LocksObserver.Remover;
import dev.locks.LocksObserver.StaleReason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys held shared or by permits in memory: per key a {@link Group} of {@link SharedLease}s, beside the
 * {@link LockTable}, which holds the exclusive ones. An exclusive acquirer takes its key in the table and then
 * looks here, a shared one joins here and then looks at the table (each writes before it reads the other's
 * side), so a key is never held both ways: whichever of two racing acquirers sees the other backs off, and
 * waits as for any holder. Stale members (a dead owner, an expired lease) are removed on the way, by the
 * sweep, and never counted as holders.
 */
final class SharedHolds {

    /** The {@link SharedLease#permits} of a shared lease. */
    static final int SHARED = -1;

    private final ConcurrentHashMap<String, Group> groups = new ConcurrentHashMap<>();
    /** Set before the first group: until then exclusive acquirers need not look here. */
    private volatile boolean used;
    private final WaitQueues queues;
    private final StaleRemoved staleRemoved;

    /** Told of each stale lease removed from a group (a dead owner's, an expired one), after it was marked lost. */
    interface StaleRemoved {
        void removed(SharedLease lease, StaleReason reason, Remover by);
    }

    /** A stale member pruned from a group, and why. */
    private record Stale(SharedLease lease, StaleReason reason) {
    }

    SharedHolds(WaitQueues queues, StaleRemoved staleRemoved) {
        this.queues = queues;
        this.staleRemoved = staleRemoved;
    }

    /** The holders of one key, all shared or all permits of one count; guarded by its monitor. */
    static final class Group {
        final String key;
        int permits;
        final List<SharedLease> members = new ArrayList<>(2);
        /** Removed from the map: a joiner makes a new group. */
        boolean gone;
        /** Raised on every member's removal, so that a waiter blocked by the group sees a place freed. */
        volatile int version;

        Group(String key, int permits) {
            this.key = key;
            this.permits = permits;
        }

        /** A blocker that is released once a member leaves; under the monitor. */
        Blocker blocker() {
            int count = members.size();
            return new Held(key, this, version, permits == SHARED
                    ? "shared by " + count + (count == 1 ? " holder" : " holders")
                    : "by all " + permits + " of its permits' holders");
        }
    }

    /** What blocks an acquire at a key held shared or by permits: released once one of them leaves. */
    record Held(String key, Group group, int seen, String holders) implements Blocker {

        @Override
        public boolean released() {
            return group.version != seen;
        }
    }

    /** Whether any key was ever held shared or by permits: until then exclusive acquirers skip this. */
    boolean inUse() {
        return used;
    }

    /**
     * Joins {@code key}'s group as {@code lease}'s entry {@code index}.
     *
     * @return {@code null} when joined, else what blocks it (every permit taken)
     * @throws IllegalArgumentException when the key is held with another number of permits, or the other way
     */
    Blocker join(String key, SharedLease lease, int index, long nowNanos) {
        used = true;
        for (;;) {
            Group group = groups.computeIfAbsent(key, k -> new Group(k, lease.permits));
            List<Stale> stale;
            int mismatch = 0;
            Blocker blocked = null;
            synchronized (group) {
                if (group.gone) {
                    continue;
                }
                stale = prune(group, nowNanos);
                if (group.members.isEmpty()) {
                    group.permits = lease.permits;
                }
                if (group.permits != lease.permits) {
                    mismatch = group.permits;
                } else if (lease.permits != SHARED && group.members.size() >= lease.permits) {
                    blocked = group.blocker();
                } else {
                    group.members.add(lease);
                    lease.groups[index] = group;
                }
            }
            removed(key, stale, Remover.ACQUIRE);
            if (mismatch != 0) {
                throw mismatch(key, lease.permits, mismatch);
            }
            return blocked;
        }
    }

    /**
     * What blocks an exclusive acquirer that took {@code key} in the table: its live shared holders, or
     * {@code null}.
     *
     * @throws IllegalArgumentException when it is held by permits (an exclusive lock is one permit)
     */
    Blocker blockingExclusive(String key, long nowNanos) {
        if (!used) {
            return null;
        }
        Group group = groups.get(key);
        if (group == null) {
            return null;
        }
        List<Stale> stale;
        Blocker blocked = null;
        int mismatch = 0;
        synchronized (group) {
            stale = prune(group, nowNanos);
            dropIfEmpty(group);
            if (!group.members.isEmpty()) {
                if (group.permits == SHARED) {
                    blocked = group.blocker();
                } else {
                    mismatch = group.permits;
                }
            }
        }
        removed(key, stale, Remover.ACQUIRE);
        if (mismatch != 0) {
            throw mismatch(key, 1, mismatch);
        }
        return blocked;
    }

    /**
     * The {@link IllegalArgumentException} of an acquire whose number of permits ({@code 1}: exclusive,
     * {@link #SHARED}: shared) disagrees with the holders' of {@code key}.
     */
    static IllegalArgumentException mismatch(String key, int asked, int held) {
        return new IllegalArgumentException("'" + key + "' is held " + shape(held) + ", and this acquire asks for it "
                + shape(asked) + ": callers of one key must agree on its number of permits (a plain exclusive lock"
                + " is 1 permit); use one number for every caller of the key");
    }

    private static String shape(int permits) {
        if (permits == SHARED) {
            return "shared";
        }
        return permits == 1 ? "with 1 permit (exclusive)" : "with " + permits + " permits";
    }

    /**
     * Whether {@code thread} holds {@code key} in its group (an open lease, not detached), shared only when
     * {@code sharedOnly}.
     */
    boolean holds(String key, Thread thread, boolean sharedOnly, long nowNanos) {
        Group group = used ? groups.get(key) : null;
        if (group == null) {
            return false;
        }
        synchronized (group) {
            if (sharedOnly && group.permits != SHARED) {
                return false;
            }
            for (SharedLease member : group.members) {
                if (member.acquirer == thread && !member.isDetached() && !member.isHeldOver()
                        && member.takesPlace(nowNanos)) { // a closed lease held over is no one's any more
                    return true;
                }
            }
        }
        return false;
    }

    /** Takes {@code lease} out of {@code group}; its key's waiters are woken, except {@code except}. */
    void leave(Group group, SharedLease lease, Waiter except) {
        synchronized (group) {
            if (!group.members.remove(lease)) {
                return;
            }
            group.version++;
            dropIfEmpty(group);
        }
        queues.released(group.key, except, true);
    }

    private void dropIfEmpty(Group group) {
        if (group.members.isEmpty() && !group.gone) {
            group.gone = true;
            groups.remove(group.key, group);
        }
    }

    /**
     * Removes the members that take no place any more (lost, closed, stale, or held over past their time); the
     * stale ones are marked lost and returned, to be counted. Under the group's monitor; the group stays in the map
     * even when empty (a joiner is about to join it): the caller drops it ({@link #dropIfEmpty}) when not.
     */
    private List<Stale> prune(Group group, long nowNanos) {
        List<Stale> stale = null;
        boolean any = false;
        for (int i = group.members.size() - 1; i >= 0; i--) {
            SharedLease member = group.members.get(i);
            if (!member.takesPlace(nowNanos)) {
                group.members.remove(i);
                any = true;
                StaleReason reason = member.staleReason(nowNanos);
                if (reason != null) {
                    member.markLost();
                    if (stale == null) {
                        stale = new ArrayList<>(1);
                    }
                    stale.add(new Stale(member, reason));
                }
            }
        }
        if (any) {
            group.version++;
        }
        return stale == null ? List.of() : stale;
    }

    /** Counts the stale members removed from {@code key}'s group and wakes its waiters. */
    private void removed(String key, List<Stale> stale, Remover by) {
        for (Stale each : stale) {
            staleRemoved.removed(each.lease(), each.reason(), by);
        }
        if (!stale.isEmpty()) {
            queues.released(key, null, true);
        }
    }

    /** Removes every stale member; returns how many leases' places were freed. */
    int sweep(long nowNanos) {
        int count = 0;
        for (Group group : groups.values()) {
            List<Stale> stale;
            synchronized (group) {
                stale = prune(group, nowNanos);
                dropIfEmpty(group);
            }
            removed(group.key, stale, Remover.SWEEP);
            count += stale.size();
        }
        return count;
    }

    /** Frees the places of a lease held over after its early close, once its time has come. */
    void endHoldOver(SharedLease lease, long nowNanos) {
        for (Group group : lease.groups) {
            if (group != null) {
                synchronized (group) {
                    prune(group, nowNanos);
                    dropIfEmpty(group);
                }
                queues.released(group.key, null, true);
            }
        }
    }

    /** The watchdog: renews the leases of live owners that are due. */
    void renew(long nowNanos) {
        if (!used) {
            return;
        }
        for (Group group : groups.values()) {
            SharedLease[] members;
            synchronized (group) {
                members = group.members.toArray(new SharedLease[0]);
            }
            for (SharedLease member : members) {
                member.renewIfDue(nowNanos);
            }
        }
    }

    /**
     * The leases whose renewal is due ({@link SharedLease#renewalDue}), each once, for a store to renew; with
     * {@code infiniteOnly}, only those of an infinite lock timeout (which a store holds under a lease of its own).
     */
    List<SharedLease> due(long nowNanos, boolean infiniteOnly) {
        Set<SharedLease> due = new LinkedHashSet<>();
        if (!used) {
            return List.of();
        }
        for (Group group : groups.values()) {
            SharedLease[] members;
            synchronized (group) {
                members = group.members.toArray(new SharedLease[0]);
            }
            for (SharedLease member : members) {
                if ((!infiniteOnly || member.timeoutNanos == Long.MAX_VALUE) && member.renewalDue(nowNanos)) {
                    due.add(member);
                }
            }
        }
        return List.copyOf(due);
    }

    /** Every lease that holds a place now, each once (a closing engine gives them back to its store). */
    List<SharedLease> leases() {
        Set<SharedLease> all = new LinkedHashSet<>();
        for (Group group : groups.values()) {
            synchronized (group) {
                all.addAll(group.members);
            }
        }
        return List.copyOf(all);
    }

    /** Removes every holder of {@code key}; their leases are lost. Whether there was any. */
    boolean forceRemove(String key) {
        Group group = used ? groups.get(key) : null;
        if (group == null) {
            return false;
        }
        boolean any;
        synchronized (group) {
            any = !group.members.isEmpty();
            for (SharedLease member : group.members) {
                member.markLost();
            }
            group.members.clear();
            group.version++;
            dropIfEmpty(group);
        }
        queues.released(key, null, true);
        return any;
    }

    /** Every holder, one row per lease and key, unsorted; leases still being taken (no token) left out. */
    List<HeldLock> heldLocks(LockEngine engine, long nowNanos, int limit) {
        List<HeldLock> held = new ArrayList<>();
        if (!used) {
            return held;
        }
        for (Group group : groups.values()) {
            SharedLease[] members;
            synchronized (group) {
                members = group.members.toArray(new SharedLease[0]);
            }
            for (SharedLease member : members) {
                if (held.size() >= limit) {
                    return held;
                }
                long token = member.token;
                if (token != 0 && !member.isLost()) {
                    long expires = member.expiresNanos();
                    held.add(new HeldLock(group.key, member.ownerDescription(), token,
                            engine.toInstant(member.acquiredNanos),
                            expires == Long.MAX_VALUE ? Instant.MAX : engine.toInstant(expires),
                            member.staleReason(nowNanos) != null));
                }
            }
        }
        return held;
    }
}
