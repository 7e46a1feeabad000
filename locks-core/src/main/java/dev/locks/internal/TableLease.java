package dev.locks.internal;

import dev.locks.Lease;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A lease on the entries of a {@link LockTable}: one entry per key, either created by this lease or
 * re-entered from an open lease of the same thread.
 */
final class TableLease implements Lease, Attempt {

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(TableLease.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LeaseHost host;
    final String[] keys;
    final LockEntry[] entries;
    final long acquiredNanos;
    /** The lock timeout of the entries this lease creates; {@link Long#MAX_VALUE} when infinite. */
    final long timeoutNanos;
    /** Who owns this lease's keys in a remote store; {@code null} without one. */
    final String ownerId;
    /** Settled by {@link LeaseTokens} once all keys are taken, before the lease is handed out. */
    long token;
    /** Until when the keys this lease took stay locked after their last hold went; {@code 0} for none. */
    final long holdUntilNanos;
    private boolean closed;

    TableLease(LeaseHost host, String[] keys, long acquiredNanos, long timeoutNanos, long holdNanos,
            String ownerId) {
        this.host = host;
        this.holdUntilNanos = holdNanos == 0 ? 0 : Nanos.after(acquiredNanos, holdNanos);
        this.keys = keys;
        this.entries = new LockEntry[keys.length];
        this.acquiredNanos = acquiredNanos;
        this.timeoutNanos = timeoutNanos;
        this.ownerId = ownerId;
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
        long earliest = Long.MAX_VALUE;
        for (LockEntry entry : entries) {
            earliest = Math.min(earliest, entry.visibleExpiresNanos());
        }
        return earliest == Long.MAX_VALUE ? Instant.MAX : host.toInstant(earliest);
    }

    @Override
    public boolean isHeld() {
        if ((boolean) CLOSED.getVolatile(this)) {
            return false;
        }
        long now = host.nanoTime();
        for (LockEntry entry : entries) {
            if (entry.isLost() || entry.isExpired(now)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, false, true)) {
            host.release(this);
        }
    }

    @Override
    public void detach() {
        for (LockEntry entry : entries) {
            if (entry.createdBy(this)) {
                entry.markDetached();
            }
        }
    }

    boolean isClosed() {
        return (boolean) CLOSED.getVolatile(this);
    }

    @Override
    public String toString() {
        return "Lease" + Arrays.toString(keys) + "[token=" + token + (isClosed() ? ", closed]" : "]");
    }
}
