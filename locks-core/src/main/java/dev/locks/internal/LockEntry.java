package dev.locks.internal;

import dev.locks.LocksObserver.StaleReason;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One held key in a {@link LockTable}: who took it, when it expires, and how many open leases of its owner
 * include it (its waiters are in {@link WaitQueues}, which outlive it). A one-key acquire's entry is its lease too ({@link SoloLease}).
 *
 * <p>Fields that change after publication are accessed through {@link VarHandle}s so that the constructor
 * writes stay plain (the table publishes the entry safely) and the uncontended path pays no fences it
 * does not need. The detached and lost marks live in the hold count's word rather than in fields of their own:
 * two booleans would cost a {@link SoloLease} 8 bytes more (JOL's layout), in a held lock's largest part. For the same reason an entry reads its acquire time and lock timeout from the lease that
 * created it ({@link #acquiredNanos()}, {@link #timeoutNanos()}): 48 bytes per key of a lease on several keys.
 */
class LockEntry implements Blocker {

    /** The bit of {@link #holds} that a {@link SoloLease} sets when it is closed. */
    static final int SELF_CLOSED = 0x8000_0000;
    /** The bit of {@link #holds} set once the entry was handed to async work (no re-entry, no dead-owner check). */
    private static final int DETACHED = 0x4000_0000;
    /** The bit of {@link #holds} set once the entry was taken from its holders (as stale, or by force). */
    private static final int LOST = 0x2000_0000;
    /**
     * The bit of {@link #holds} set when the last hold went before the entry's hold-at-least time: the entry stays
     * in the table, held by nobody, until its expiry ({@link #holdOver}).
     */
    private static final int HELD_OVER = 0x1000_0000;
    /** The rest of {@link #holds} counts holds. */
    private static final int COUNT = 0x0FFF_FFFF;

    private static final VarHandle HOLDS;
    private static final VarHandle EXPIRES;
    private static final VarHandle TOKEN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HOLDS = lookup.findVarHandle(LockEntry.class, "holds", int.class);
            EXPIRES = lookup.findVarHandle(LockEntry.class, "expiresNanos", long.class);
            TOKEN = lookup.findVarHandle(LockEntry.class, "token", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String key;
    final Thread acquirer;
    /** The lease that took this key; {@code null} for a {@link SoloLease}, which is its own. */
    private final TableLease creator;

    private long expiresNanos;
    private long token;
    /** The hold count, with the marks {@link #SELF_CLOSED}, {@link #DETACHED} and {@link #LOST}. */
    private int holds;

    /**
     * @param nowNanos when {@code creator} acquires (its {@code acquiredNanos}), or the {@link SoloLease} does
     * @param leaseNanos how long the lease lasts unless renewed: the lock timeout, except for an infinite lock
     *        timeout held in a store under the store's lease ({@link LockTable#leaseNanos})
     */
    LockEntry(String key, Thread acquirer, TableLease creator, long nowNanos, long leaseNanos) {
        this(key, acquirer, creator, nowNanos, leaseNanos, false);
    }

    /**
     * @param detached whether the entry is born {@linkplain #markDetached() detached}: taken for asynchronous work
     *        (an asynchronous acquire, whose attempts run on the library's threads), so that no thread re-enters it
     *        and no thread's end makes it stale, not even in the instant after it was taken
     */
    LockEntry(String key, Thread acquirer, TableLease creator, long nowNanos, long leaseNanos, boolean detached) {
        this.key = key;
        this.acquirer = acquirer;
        this.creator = creator;
        this.expiresNanos = deadline(nowNanos, leaseNanos);
        this.holds = detached ? 1 | DETACHED : 1;
    }

    /** {@code now + timeout}, saturating at {@link Long#MAX_VALUE} (never). */
    static long deadline(long nowNanos, long timeoutNanos) {
        return Nanos.after(nowNanos, timeoutNanos);
    }

    @Override
    public String key() {
        return key;
    }

    /**
     * When the key was taken: its creating lease's acquire time, the same reading of the clock (a
     * {@link SoloLease} keeps its own).
     */
    long acquiredNanos() {
        return creator.acquiredNanos;
    }

    /** The holder's lock timeout, its creating lease's ({@link Long#MAX_VALUE} when infinite). */
    long timeoutNanos() {
        return creator.timeoutNanos;
    }

    /**
     * Until when the key stays locked after its last hold went ({@code holdAtLeast} of the lease that took it), as
     * a reading of the clock; {@code 0} for none (a one-key lease takes no hold). Leases that re-entered the key
     * with a hold of their own are the table's to add ({@link LockTable#holdUntilNanos}).
     */
    long holdUntilNanos() {
        return creator == null ? 0 : creator.holdUntilNanos;
    }

    /** Whether {@code lease} took this key (rather than re-entered it). */
    boolean createdBy(Object lease) {
        return creator == lease;
    }

    /** Who owns this key in a remote store; {@code null} without one. */
    String ownerId() {
        return creator == null ? null : creator.ownerId;
    }

    /** Whether {@code thread} may re-enter this entry: it took it and has not handed it to async work. */
    boolean isOwnedBy(Thread thread) {
        return acquirer == thread && ((int) HOLDS.getOpaque(this) & DETACHED) == 0;
    }

    /** Adds one hold for a re-entrant acquire; false when the last hold is being released. */
    boolean tryReenter() {
        for (;;) {
            int current = (int) HOLDS.getVolatile(this);
            if ((current & COUNT) == 0) {
                return false;
            }
            if ((current & COUNT) == COUNT) {
                throw new IllegalStateException("maximum re-entry count exceeded for key " + Keys.show(key));
            }
            if (HOLDS.compareAndSet(this, current, current + 1)) {
                return true;
            }
        }
    }

    /** Drops one hold; returns how many are left. */
    int dropHold() {
        return ((int) HOLDS.getAndAdd(this, -1) - 1) & COUNT;
    }

    /**
     * Drops the hold of the entry's own lease ({@link SoloLease}), once: one CAS both drops it and marks the
     * lease closed.
     *
     * @return how many holds are left, or -1 when the lease was closed already
     */
    int closeSelf() {
        for (;;) {
            int current = (int) HOLDS.getVolatile(this);
            if ((current & SELF_CLOSED) != 0) {
                return -1;
            }
            int next = (current - 1) | SELF_CLOSED;
            if (HOLDS.compareAndSet(this, current, next)) {
                return next & COUNT;
            }
        }
    }

    /**
     * Drops one hold, as {@link #dropHold()}, except that the last one, before {@code untilNanos} and unless the
     * entry was lost, leaves the entry held over: in the table, its expiry moved to {@code untilNanos}, owned by no
     * thread (no re-entry, no dead-owner check), renewed no more; it turns stale then, and frees its key.
     *
     * @return how many holds are left, or -1 when the entry is now held over
     */
    int dropHoldOrHoldOver(long untilNanos, long nowNanos) {
        synchronized (this) { // as renewal and stale removal: neither sees it half-changed
            int current = (int) HOLDS.getVolatile(this);
            if ((current & COUNT) != 1 || (current & LOST) != 0 || untilNanos - nowNanos <= 0) {
                return dropHold();
            }
            long expires = expiresNanos();
            EXPIRES.setVolatile(this, untilNanos);
            if (!HOLDS.compareAndSet(this, current, current | HELD_OVER | DETACHED)) {
                EXPIRES.setVolatile(this, expires); // lost meanwhile (marks are set outside the monitor)
                return dropHold();
            }
            return -1;
        }
    }

    /** Whether the entry's last hold went before its hold-at-least time, and it waits for that time. */
    boolean isHeldOver() {
        return ((int) HOLDS.getVolatile(this) & HELD_OVER) != 0;
    }

    /**
     * {@link #closeSelf()}, except that the last hold, before {@code untilNanos} and unless the entry was lost,
     * leaves the entry {@linkplain #dropHoldOrHoldOver held over}.
     *
     * @return as {@link #closeSelf()}, or -2 when the entry is now held over
     */
    int closeSelfOrHoldOver(long untilNanos, long nowNanos) {
        synchronized (this) {
            int current = (int) HOLDS.getVolatile(this);
            if ((current & SELF_CLOSED) != 0 || (current & COUNT) != 1 || (current & LOST) != 0
                    || untilNanos - nowNanos <= 0) {
                return closeSelf();
            }
            EXPIRES.setVolatile(this, untilNanos);
            if (!HOLDS.compareAndSet(this, current, current | SELF_CLOSED | HELD_OVER | DETACHED)) {
                return closeSelf(); // lost meanwhile (marks are set outside the monitor): a plain close
            }
            return -2;
        }
    }

    /** Whether the entry's own lease ({@link SoloLease}) was closed. */
    boolean isSelfClosed() {
        return ((int) HOLDS.getVolatile(this) & SELF_CLOSED) != 0;
    }

    /** Whether every hold is gone (the entry is on its way out of the table). */
    boolean isReleasing() {
        return ((int) HOLDS.getVolatile(this) & COUNT) == 0;
    }

    /** Why this entry is stale at {@code nowNanos}, or {@code null} when it is not. */
    StaleReason staleReason(long nowNanos) {
        if (((int) HOLDS.getOpaque(this) & DETACHED) == 0 && !acquirer.isAlive()) {
            return StaleReason.DEAD_OWNER;
        }
        return isExpired(nowNanos) ? StaleReason.EXPIRED : null;
    }

    boolean isExpired(long nowNanos) {
        long expires = expiresNanos();
        return expires != Long.MAX_VALUE && nowNanos - expires >= 0;
    }

    long expiresNanos() {
        return (long) EXPIRES.getVolatile(this);
    }

    /**
     * When the lease ends as the holder sees it: {@link Long#MAX_VALUE} for an infinite lock timeout, even
     * while a store holds it under a renewed lease of its own (that lease still ends {@link #isHeld} of the
     * holder when it is not renewed in time, through {@link #isExpired}).
     */
    long visibleExpiresNanos() {
        return timeoutNanos() == Long.MAX_VALUE && !isHeldOver() ? Long.MAX_VALUE : expiresNanos();
    }

    /**
     * Pushes the expiry to {@code renewedNanos + leaseNanos}, never backwards; call only while holding this
     * entry's monitor, and only for a renewal that was confirmed before the lease ran out.
     */
    void renew(long renewedNanos, long leaseNanos) {
        long renewed = deadline(renewedNanos, leaseNanos);
        if (renewed - expiresNanos() > 0) {
            EXPIRES.setVolatile(this, renewed);
        }
    }

    long token() {
        return (long) TOKEN.getAcquire(this);
    }

    void token(long value) {
        TOKEN.setRelease(this, value);
    }

    boolean isDetached() {
        return ((int) HOLDS.getOpaque(this) & DETACHED) != 0;
    }

    void markDetached() {
        HOLDS.getAndBitwiseOr(this, DETACHED);
    }

    /** Whether the entry was taken from its holders (as stale, or by force). */
    boolean isLost() {
        return ((int) HOLDS.getVolatile(this) & LOST) != 0;
    }

    void markLost() {
        HOLDS.getAndBitwiseOr(this, LOST);
    }

    /** Whether it has left the table or is on its way out (its last hold dropped, or taken as stale or by force). */
    @Override
    public boolean released() {
        return isReleasing() || isLost();
    }

    /** A readable description of the owner, for operations. */
    String ownerDescription() {
        String name = acquirer.getName();
        if (isHeldOver()) {
            return name + " (closed, held at least until its expiry)";
        }
        if (isDetached()) {
            return name + " (detached)";
        }
        return acquirer.isAlive() ? name : name + " (terminated)";
    }
}
