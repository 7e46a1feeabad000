package dev.locks.internal;

import dev.locks.Lease;
import java.time.Instant;
import java.util.List;

/**
 * The lease of a one-key acquire on the in-memory backend, which is also that key's entry in the table: one
 * object where a lease on several keys needs a lease, its arrays and an entry per key, and one CAS on close
 * (its hold count carries the closed mark). The most common lock costs half the memory and a third less time.
 * A nested acquire of the same key by its thread re-enters it like any entry, through a {@link TableLease}.
 */
final class SoloLease extends LockEntry implements Lease, Attempt {

    private final LockEngine engine;
    private final long acquiredNanos;
    private final long timeoutNanos;

    SoloLease(LockEngine engine, String key, Thread acquirer, long nowNanos, long timeoutNanos, long leaseNanos) {
        super(key, acquirer, null, nowNanos, leaseNanos);
        this.engine = engine;
        this.acquiredNanos = nowNanos;
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    long timeoutNanos() {
        return timeoutNanos;
    }

    @Override
    long acquiredNanos() {
        return acquiredNanos;
    }

    @Override
    boolean createdBy(Object lease) {
        return lease == this;
    }

    @Override
    public List<String> keys() {
        return List.of(key());
    }

    @Override
    public long fencingToken() {
        return token();
    }

    @Override
    public Instant acquiredAt() {
        return engine.toInstant(acquiredNanos);
    }

    @Override
    public Instant expiresAt() {
        long expires = visibleExpiresNanos();
        return expires == Long.MAX_VALUE ? Instant.MAX : engine.toInstant(expires);
    }

    @Override
    public boolean isHeld() {
        return !isSelfClosed() && !isLost() && !isExpired(engine.clock().nanoTime());
    }

    @Override
    public void close() {
        engine.release(this);
    }

    @Override
    public void detach() {
        markDetached();
    }

    @Override
    public String toString() {
        return "Lease[" + key() + "][token=" + token() + (isSelfClosed() ? ", closed]" : "]");
    }
}
