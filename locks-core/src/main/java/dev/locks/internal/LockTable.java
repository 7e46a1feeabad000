package dev.locks.internal;

import dev.locks.LocksObserver.Remover;
import dev.locks.LocksObserver.StaleReason;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The table of held keys: one {@link LockEntry} per key, taken with {@code putIfAbsent} and removed only
 * conditionally on the very entry that was judged (released, stale, or forced out), never by key alone.
 */
final class LockTable {

    /** Told of every stale entry removed. */
    @FunctionalInterface
    interface StaleRemovals {
        void removed(LockEntry entry, StaleReason reason, Remover by);
    }

    private final ConcurrentHashMap<String, LockEntry> entries = new ConcurrentHashMap<>();
    /**
     * The hold-at-least times that leases which re-entered an entry brought (the one of the lease that took it is
     * its own): rare, so kept here rather than in every entry; an entry leaves when it leaves the table.
     */
    private final ConcurrentHashMap<LockEntry, Long> reentryHolds = new ConcurrentHashMap<>();
    private final StaleRemovals staleRemovals;
    private final WaitQueues queues;
    /** The longest {@link #STORE_MARGIN_FRACTION} of a lease a holder gives up: 100 ms. */
    static final long MAX_STORE_MARGIN_NANOS = 100_000_000L;

    /**
     * The share of a store-backed lease that its holder gives up, at most {@link #MAX_STORE_MARGIN_NANOS}: the
     * holder counts its lease from the time it sent the acquire or renewal (never later than the store applied
     * it), but the store ends it by its own clock (Redis's and the database's wall clock, at millisecond
     * precision), which may run faster than this node's monotonic clock or be stepped; so {@code isHeld()}
     * turns false a little before the store may hand the key to another node, not a little after.
     */
    static final int STORE_MARGIN_FRACTION = 20;

    private final long infiniteLeaseNanos;
    private final boolean storeBacked;
    /** The coarse clock that stamps some of this table's entries ({@link #judgedAt}); {@code null} for none. */
    private final CoarseClock stamps;

    /**
     * @param infiniteLeaseNanos the lease under which a store holds an infinite lock timeout, so that the
     *        holder's lease too lasts only as long as the store confirmed it; {@link Long#MAX_VALUE} in memory
     * @param storeBacked whether the leases are the store's (which ends them by its own clock), not this table's
     */
    LockTable(StaleRemovals staleRemovals, WaitQueues queues, long infiniteLeaseNanos, boolean storeBacked) {
        this(staleRemovals, queues, infiniteLeaseNanos, storeBacked, null);
    }

    /** @param stamps the coarse clock that stamps some entries' acquire time; {@code null} when none does */
    LockTable(StaleRemovals staleRemovals, WaitQueues queues, long infiniteLeaseNanos, boolean storeBacked,
            CoarseClock stamps) {
        this.staleRemovals = staleRemovals;
        this.queues = queues;
        this.infiniteLeaseNanos = infiniteLeaseNanos;
        this.storeBacked = storeBacked;
        this.stamps = stamps;
    }

    /**
     * The time at which to judge whether {@code entry} expired, asked at {@code nowNanos}: that time itself, unless
     * entries are stamped by a {@link CoarseClock}. Then {@code nowNanos}, which may be such a stamp (ahead of the
     * precise time by up to its slack, or behind it when the ticker is late), gives way to a precise reading, and
     * when {@code entry} looks expired at that, to the reading less how much later than its stamp the entry may have
     * been taken (its own tick was late): so a lease is never judged expired before its lock timeout has passed since
     * it was taken, nor later than a slack after that unless its tick was late. A judgment comes only with
     * contention (a key found held), a sweep or a listing: the uncontended acquire never pays this reading.
     */
    long judgedAt(LockEntry entry, long nowNanos) {
        if (stamps == null) {
            return nowNanos;
        }
        long now = System.nanoTime();
        if (!entry.isExpired(now)) {
            return now;
        }
        long stamp = entry.acquiredNanos();
        return now - (stamps.acquiredAtMost(stamp, now) - stamp);
    }

    /** Whether {@code entry} has expired, {@linkplain #judgedAt judged} at {@code nowNanos}. */
    boolean isExpired(LockEntry entry, long nowNanos) {
        return entry.isExpired(judgedAt(entry, nowNanos));
    }

    /** Why {@code entry} is stale, {@linkplain #judgedAt judged} at {@code nowNanos}; {@code null} when it is not. */
    StaleReason staleReason(LockEntry entry, long nowNanos) {
        return entry.staleReason(judgedAt(entry, nowNanos));
    }

    /**
     * How long a lease of this lock timeout lasts, as its holder sees it, unless renewed: the timeout, or the
     * store's lease; in front of a store, less a safety margin ({@link #STORE_MARGIN_FRACTION}).
     */
    long leaseNanos(long timeoutNanos) {
        long lease = timeoutNanos == Long.MAX_VALUE ? infiniteLeaseNanos : timeoutNanos;
        if (!storeBacked || lease == Long.MAX_VALUE) {
            return lease;
        }
        return lease - Math.min(lease / STORE_MARGIN_FRACTION, MAX_STORE_MARGIN_NANOS);
    }

    /** What {@link #takeSolo} returns when the caller holds the key already: re-enter it with a lease. */
    static final LockEntry REENTRY = new LockEntry("re-entry", null, null, 0, 0);

    /** What to do about the entry found holding a key. */
    private enum Verdict { REENTER, RETRY, BLOCKED }

    /**
     * Takes {@code key} for {@code lease} as its entry number {@code index}: a new entry, or a re-entry of
     * the calling thread's own. A stale holder is removed on the way (on-demand cleanup).
     *
     * @param reenter whether the caller re-enters an entry of its own (else such an entry counts as held, and the
     *        new entry is born detached: a non-re-entrant acquire is one for asynchronous work)
     * @return {@code null} when taken, else the live entry that holds the key
     */
    LockEntry take(String key, Thread caller, boolean reenter, TableLease lease, int index, long nowNanos,
            long timeoutNanos) {
        LockEntry mine = new LockEntry(key, caller, lease, nowNanos, leaseNanos(timeoutNanos), !reenter);
        for (;;) {
            LockEntry held = entries.putIfAbsent(key, mine);
            if (held == null) {
                lease.entries[index] = mine;
                return null;
            }
            Verdict verdict = judge(held, caller, reenter, nowNanos);
            if (verdict == Verdict.REENTER) {
                if (held.tryReenter()) {
                    lease.entries[index] = held;
                    return null;
                }
                entries.remove(key, held); // its last hold is on its way out: help, then try again
            } else if (verdict == Verdict.BLOCKED) {
                return held;
            }
        }
    }

    /**
     * Takes {@code mine}'s key with {@code mine} itself, a new {@link SoloLease}.
     *
     * @param reenter whether the caller re-enters an entry of its own (else such an entry counts as held)
     * @return {@code mine} when taken; {@link #REENTRY} when the caller holds the key already (it re-enters
     *         through a lease of its own); else the live entry that holds the key
     */
    LockEntry takeSolo(SoloLease mine, Thread caller, boolean reenter, long nowNanos) {
        for (;;) {
            LockEntry held = entries.putIfAbsent(mine.key(), mine);
            if (held == null) {
                return mine;
            }
            Verdict verdict = judge(held, caller, reenter, nowNanos);
            if (verdict == Verdict.REENTER) {
                return REENTRY;
            } else if (verdict == Verdict.BLOCKED) {
                return held;
            }
        }
    }

    /**
     * Judges the entry that holds a key: the caller's own to re-enter; gone or going (a last hold being
     * released, or stale and now removed), so try again; or a live holder.
     */
    private Verdict judge(LockEntry held, Thread caller, boolean reenter, long nowNanos) {
        if (reenter && held.isOwnedBy(caller) && !isExpired(held, nowNanos)) {
            return Verdict.REENTER;
        }
        if (held.isReleasing()) {
            entries.remove(held.key(), held); // its last hold is on its way out: help, then try again
            return Verdict.RETRY;
        }
        StaleReason reason = staleReason(held, nowNanos);
        if (reason == null) {
            return Verdict.BLOCKED;
        }
        removeIfStale(held, nowNanos, Remover.ACQUIRE);
        return Verdict.RETRY;
    }

    /**
     * The live entry holding {@code key}, or {@code null}: an entry on its way out is helped out, a stale one removed
     * (on-demand cleanup), as an acquirer's {@link #take} would.
     */
    LockEntry liveHolder(String key, long nowNanos) {
        for (;;) {
            LockEntry held = entries.get(key);
            if (held == null) {
                return null;
            }
            if (held.isReleasing()) {
                entries.remove(key, held);
            } else if (staleReason(held, nowNanos) == null) {
                return held;
            } else {
                removeIfStale(held, nowNanos, Remover.ACQUIRE);
            }
        }
    }

    /** Drops one hold of {@code entry}; the last one removes it from the table and wakes its waiters. */
    void drop(LockEntry entry) {
        if (entry.dropHold() == 0) {
            removeReleased(entry);
        }
    }

    /**
     * Drops the hold of an attempt that is rolled back; the last one removes the entry, waking whoever waits
     * for its key except {@code self}, the rolling-back waiter.
     */
    void drop(LockEntry entry, Waiter self) {
        if (entry.dropHold() == 0) {
            entries.remove(entry.key(), entry);
            queues.released(entry.key(), self, true);
        }
    }

    /** A lease re-entered {@code entry} with a hold until {@code untilNanos}: the entry is held until then too. */
    void holdAtLeastUntil(LockEntry entry, long untilNanos) {
        reentryHolds.merge(entry, untilNanos, (held, until) -> until - held > 0 ? until : held);
    }

    /**
     * Until when {@code entry} stays locked after its last hold goes: the latest hold-at-least time of the leases
     * that took or re-entered it; {@code 0} for none.
     */
    long holdUntilNanos(LockEntry entry) {
        long own = entry.holdUntilNanos();
        Long reentered = reentryHolds.isEmpty() ? null : reentryHolds.get(entry);
        if (reentered == null) {
            return own;
        }
        return own == 0 || reentered - own > 0 ? reentered : own;
    }

    private void forgetHold(LockEntry entry) {
        if (!reentryHolds.isEmpty()) {
            reentryHolds.remove(entry);
        }
    }

    /** Removes an entry whose last hold was dropped, and wakes its waiters. */
    void removeReleased(LockEntry entry) {
        forgetHold(entry);
        entries.remove(entry.key(), entry);
        queues.released(entry.key(), null, true);
    }

    /**
     * Removes {@code entry} if it is (still) stale. Judging and removing happen under the entry's monitor,
     * which renewal takes too, so a lock renewed in between survives; removal is conditional on this
     * entry, so a lock taken in between by someone else survives.
     *
     * @return whether it was removed
     */
    boolean removeIfStale(LockEntry entry, long nowNanos, Remover by) {
        StaleReason reason;
        boolean heldOver;
        synchronized (entry) {
            reason = staleReason(entry, nowNanos);
            if (reason == null || !entries.remove(entry.key(), entry)) {
                return false;
            }
            heldOver = entry.isHeldOver();
            forgetHold(entry);
            if (!heldOver) {
                entry.markLost();
            }
        }
        queues.released(entry.key(), null, true);
        if (heldOver) {
            return false; // a closed lease's hold-at-least time ended: a release, not a stale lock
        }
        staleRemovals.removed(entry, reason, by);
        return true;
    }

    /**
     * Drops the last hold of {@code entry} before its hold-at-least time {@code untilNanos}: the entry stays,
     * {@linkplain LockEntry#dropHoldOrHoldOver held over} until then; otherwise as {@link #drop(LockEntry)}.
     *
     * @return whether it is held over (then the caller frees it at {@code untilNanos}: {@link #endHoldOver})
     */
    boolean dropOrHoldOver(LockEntry entry, long untilNanos, long nowNanos) {
        int left = entry.dropHoldOrHoldOver(untilNanos, nowNanos);
        if (left == 0) {
            removeReleased(entry);
        }
        return left < 0;
    }

    /**
     * Frees a held-over entry once its time has come, waking its waiters.
     *
     * @return how long until its time, in nanoseconds, when it has not come yet; else 0
     */
    long endHoldOver(LockEntry entry, long nowNanos) {
        if (entries.get(entry.key()) != entry) {
            return 0; // freed already (by an acquirer, a sweep or force)
        }
        long judged = judgedAt(entry, nowNanos);
        if (!entry.isExpired(judged)) {
            return Math.max(1, entry.expiresNanos() - judged);
        }
        removeIfStale(entry, nowNanos, Remover.SWEEP);
        return 0;
    }

    /**
     * Extends a live entry's lease to {@code renewedNanos} plus its timeout, as the store (or, in memory, the
     * table itself) confirmed at {@code confirmedNanos}; unless it was removed meanwhile, or its lease ran out
     * before the confirmation: a lease that ran out is never revived, even before anyone else took its key.
     *
     * @param renewedNanos when the renewal was sent (no later than the store applied it)
     * @return whether the lease was extended
     */
    boolean renew(LockEntry entry, long renewedNanos, long confirmedNanos) {
        synchronized (entry) {
            if (entry.isLost() || entry.isReleasing() || entry.isHeldOver() || isExpired(entry, confirmedNanos)) {
                return false;
            }
            entry.renew(renewedNanos, leaseNanos(entry.timeoutNanos()));
            return true;
        }
    }

    /** Removes whatever holds {@code key}; its holders find their lease lost. */
    boolean forceRemove(String key) {
        LockEntry entry = entries.get(key);
        if (entry == null) {
            return false;
        }
        synchronized (entry) {
            if (!entries.remove(key, entry)) {
                return false;
            }
            forgetHold(entry);
            entry.markLost();
        }
        queues.released(key, null, true);
        return true;
    }

    LockEntry get(String key) {
        return entries.get(key);
    }

    /** A weakly consistent view: iterating it never blocks acquirers. */
    Collection<LockEntry> entries() {
        return entries.values();
    }

    int size() {
        return entries.size();
    }

    /**
     * Hands the entries that {@code select} accepts (in the table's weakly consistent order, each tested once) to
     * {@code batch}, {@code size} at a time, the last batch possibly smaller and never empty.
     */
    void inBatches(int size, Predicate<LockEntry> select, Consumer<List<LockEntry>> batch) {
        List<LockEntry> next = new ArrayList<>(Math.min(size, entries.size()));
        for (LockEntry entry : entries.values()) {
            if (select.test(entry)) {
                next.add(entry);
                if (next.size() == size) {
                    batch.accept(next);
                    next = new ArrayList<>(size);
                }
            }
        }
        if (!next.isEmpty()) {
            batch.accept(next);
        }
    }
}
