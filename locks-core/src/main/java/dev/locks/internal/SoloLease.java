package dev.locks.internal;

import dev.locks.Lease;
import java.time.Instant;
import java.util.List;

/**
 * The lease of a one-key acquire on the in-memory backend, which is also that key's entry in the table: one
 * object where a lease on several keys needs a lease, its arrays and an entry per key, and one CAS on close
 * (its hold count carries the closed mark). The most common lock costs half the memory and a third less time.
 * A nested acquire of the same key by its thread re-enters it like any entry, through a {@link TableLease}.
 *
 * <p>A lease under the registry's default lock timeout reads it from its engine's {@link LeaseHost}, 56 bytes; one
 * under a timeout of its own ({@link Timed}) keeps it, 64.
 */
sealed class SoloLease extends LockEntry implements Lease, Attempt permits SoloLease.Timed {

    private final LeaseHost host;
    private final long acquiredNanos;

    /** A one-key lease under the engine's default lock timeout. */
    SoloLease(LeaseHost host, String key, Thread acquirer, long nowNanos, long leaseNanos, boolean detached) {
        super(key, acquirer, null, nowNanos, leaseNanos, detached);
        this.host = host;
        this.acquiredNanos = nowNanos;
    }

    /**
     * A one-key lease of {@code timeoutNanos}: the default one's when it is, else its own; {@code detached} from
     * its creation (see {@link LockEntry#LockEntry(String, Thread, TableLease, long, long, boolean)}).
     */
    static SoloLease of(LeaseHost host, String key, Thread acquirer, long nowNanos, long timeoutNanos,
            long leaseNanos, boolean detached) {
        return timeoutNanos == host.defaultTimeoutNanos()
                ? new SoloLease(host, key, acquirer, nowNanos, leaseNanos, detached)
                : new Timed(host, key, acquirer, nowNanos, timeoutNanos, leaseNanos, detached);
    }

    @Override
    long timeoutNanos() {
        return host.defaultTimeoutNanos();
    }

    /** A one-key lease under a lock timeout other than the default. */
    static final class Timed extends SoloLease {

        private final long timeoutNanos;

        Timed(LeaseHost host, String key, Thread acquirer, long nowNanos, long timeoutNanos, long leaseNanos,
                boolean detached) {
            super(host, key, acquirer, nowNanos, leaseNanos, detached);
            this.timeoutNanos = timeoutNanos;
        }

        @Override
        long timeoutNanos() {
            return timeoutNanos;
        }
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
        return host.toInstant(acquiredNanos);
    }

    @Override
    public Instant expiresAt() {
        long expires = visibleExpiresNanos();
        return expires == Long.MAX_VALUE ? Instant.MAX : host.toInstant(expires);
    }

    @Override
    public boolean isHeld() {
        return !isSelfClosed() && !isLost() && !isExpired(host.nanoTime());
    }

    @Override
    public void close() {
        host.release(this);
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
