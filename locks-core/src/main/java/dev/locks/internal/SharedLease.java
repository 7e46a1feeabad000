package dev.locks.internal;

import dev.locks.Lease;
import dev.locks.LocksObserver.StaleReason;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A lease that holds its keys shared (a read lock) or as one of each key's permits (a counted lock): a member of
 * every key's {@link SharedHolds.Group}, with a fencing token, an expiry and an owner of its own, so that a holder
 * that never closes it frees its place after its lock timeout. A key its thread holds exclusive is re-entered
 * instead ({@link #reentered}): exclusive holders may take their keys shared again.
 */
final class SharedLease implements Lease, Attempt {

    private final LeaseHost host;
    final String[] keys;
    /** The group joined per key; {@code null} where the key was re-entered. */
    final SharedHolds.Group[] groups;
    /** The thread's own exclusive entry re-entered per key; {@code null} where a group was joined. */
    final LockEntry[] reentered;
    final Thread acquirer;
    final long acquiredNanos;
    /** The lock timeout; {@link Long#MAX_VALUE} when infinite. */
    final long timeoutNanos;
    /** How long the lease lasts unless renewed ({@link LockTable#leaseNanos}). */
    final long leaseNanos;
    /** Until when the keys stay held after an early close; {@code 0} for none. */
    final long holdUntilNanos;
    /** {@link SharedHolds#SHARED}, or how many permits each key has. */
    final int permits;
    /** Its owner id in a remote store; {@code null} in memory. */
    final String ownerId;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean detached;
    private volatile boolean lost;
    private volatile boolean heldOver;
    private volatile long expiresNanos;
    volatile long token;

    SharedLease(LeaseHost host, String[] keys, Thread acquirer, long nowNanos, long timeoutNanos, long leaseNanos,
            long holdNanos, int permits, boolean detached, String ownerId) {
        this.host = host;
        this.keys = keys;
        this.groups = new SharedHolds.Group[keys.length];
        this.reentered = new LockEntry[keys.length];
        this.acquirer = acquirer;
        this.acquiredNanos = nowNanos;
        this.timeoutNanos = timeoutNanos;
        this.leaseNanos = leaseNanos;
        this.holdUntilNanos = holdNanos == 0 ? 0 : Nanos.after(nowNanos, holdNanos);
        this.permits = permits;
        this.ownerId = ownerId;
        this.detached = detached;
        this.expiresNanos = Nanos.after(nowNanos, leaseNanos);
    }

    @Override
    public List<String> keys() {
        return Collections.unmodifiableList(Arrays.asList(keys));
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public Instant acquiredAt() {
        return host.toInstant(acquiredNanos);
    }

    @Override
    public Instant expiresAt() {
        long earliest = expiresNanos;
        for (LockEntry entry : reentered) {
            if (entry != null) {
                earliest = Math.min(earliest, entry.visibleExpiresNanos());
            }
        }
        return earliest == Long.MAX_VALUE ? Instant.MAX : host.toInstant(earliest);
    }

    @Override
    public boolean isHeld() {
        if (closed.get() || lost) {
            return false;
        }
        long now = host.nanoTime();
        if (isExpired(now)) {
            return false;
        }
        for (LockEntry entry : reentered) {
            if (entry != null && (entry.isLost() || entry.isExpired(now))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            host.release(this);
        }
    }

    @Override
    public void detach() {
        detached = true;
        for (LockEntry entry : reentered) {
            if (entry != null && entry.createdBy(this)) {
                entry.markDetached();
            }
        }
    }

    boolean isShared() {
        return permits == SharedHolds.SHARED;
    }

    boolean isDetached() {
        return detached;
    }

    boolean isLost() {
        return lost;
    }

    void markLost() {
        lost = true;
    }

    boolean isHeldOver() {
        return heldOver;
    }

    /** Closed before its hold-at-least time: its places stay taken until {@code untilNanos}. */
    synchronized void holdOver(long untilNanos) {
        expiresNanos = untilNanos;
        heldOver = true;
    }

    long expiresNanos() {
        return expiresNanos;
    }

    boolean isExpired(long nowNanos) {
        long expires = expiresNanos;
        return expires != Long.MAX_VALUE && nowNanos - expires >= 0;
    }

    /** Whether it takes a place in its groups at {@code nowNanos}: open and live, or held over until its time. */
    boolean takesPlace(long nowNanos) {
        if (lost) {
            return false;
        }
        if (heldOver) {
            return !isExpired(nowNanos);
        }
        return !closed.get() && staleReason(nowNanos) == null;
    }

    /** Why this open lease is stale at {@code nowNanos} (dead owner, expired), or {@code null}. */
    StaleReason staleReason(long nowNanos) {
        if (lost || heldOver || closed.get()) {
            return null;
        }
        if (!detached && !acquirer.isAlive()) {
            return StaleReason.DEAD_OWNER;
        }
        return isExpired(nowNanos) ? StaleReason.EXPIRED : null;
    }

    /**
     * The watchdog's renewal: extends the lease of a live owner once a third of its timeout has passed since its
     * last renewal; never one that ran out, was closed or lost.
     */
    synchronized void renewIfDue(long nowNanos) {
        if (renewalDue(nowNanos)) {
            expiresNanos = Nanos.after(nowNanos, leaseNanos);
        }
    }

    /**
     * Whether its lease is due for renewal at {@code nowNanos}: a live owner's, a third of it passed since its last
     * renewal (a lease of infinite lock timeout in a store is the store's, renewed too); never one that ran out,
     * was closed or lost.
     */
    synchronized boolean renewalDue(long nowNanos) {
        if (leaseNanos == Long.MAX_VALUE || token == 0 || staleReason(nowNanos) != null || lost || heldOver
                || closed.get()) {
            return false;
        }
        return expiresNanos - nowNanos < leaseNanos - leaseNanos / 3;
    }

    /**
     * A store confirmed the renewal sent at {@code sentNanos}, answered at {@code answeredNanos}: the lease moves
     * forward to the sending time plus its lease, only if the answer came before it ran out (a lease is only as
     * long as the store confirmed it).
     */
    synchronized void renewed(long sentNanos, long answeredNanos) {
        if (!lost && !heldOver && answeredNanos - expiresNanos < 0) {
            expiresNanos = Math.max(expiresNanos, Nanos.after(sentNanos, leaseNanos));
        }
    }

    /** A readable description of the owner, for operations. */
    String ownerDescription() {
        String name = acquirer.getName() + (isShared() ? " (shared" : " (one of " + permits + " permits");
        if (heldOver) {
            return name + ", closed, held at least until its expiry)";
        }
        if (detached) {
            return name + ", detached)";
        }
        return acquirer.isAlive() ? name + ")" : name + ", terminated)";
    }

    @Override
    public String toString() {
        return "Lease" + Arrays.toString(keys) + "[" + (isShared() ? "shared" : permits + " permits") + ", token="
                + token + (closed.get() ? ", closed]" : "]");
    }
}
