package dev.locks.benchmarks.proto;

import dev.locks.support.StoreKeys;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Prototype of a single-key fast path: the lease <em>is</em> the table entry (one object instead of a lease,
 * its key array, its entry array and the entry), its hold count doubles as the closed flag (one CAS instead of
 * two atomics), and the fencing token comes from the engine's striped counters as today. Only the uncontended
 * path is here (no waiting, no re-entry, no stale removal): enough to measure what the allocations and atomics
 * of today's path cost, not a replacement for it.
 */
final class FusedLeaseTable {

    private static final Object RELEASED = new Object();
    private static final int STRIPES = 64;
    private static final int SPACING = 16;

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLongArray tokens = new AtomicLongArray(STRIPES * SPACING);
    private final long timeoutNanos;

    FusedLeaseTable(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    /** Takes {@code key} for the calling thread; the prototype has no waiting, so a held key is an error. */
    Entry acquire(String key) {
        StoreKeys.requireValid(key);
        long now = System.nanoTime();
        Entry mine = new Entry(this, key, Thread.currentThread(), now, now + timeoutNanos);
        if (entries.putIfAbsent(key, mine) != null) {
            throw new IllegalStateException("prototype: " + key + " is held (no waiting here)");
        }
        mine.token = tokens.incrementAndGet(slot(key));
        return mine;
    }

    /** As {@link #acquire}, without reading the clock: what {@code System.nanoTime} costs on the fast path. */
    Entry acquireWithoutClock(String key) {
        StoreKeys.requireValid(key);
        Entry mine = new Entry(this, key, Thread.currentThread(), 0, Long.MAX_VALUE);
        if (entries.putIfAbsent(key, mine) != null) {
            throw new IllegalStateException("prototype: " + key + " is held (no waiting here)");
        }
        mine.token = tokens.incrementAndGet(slot(key));
        return mine;
    }

    /** As {@link #acquire}, without a fencing token: what the striped counter costs. */
    Entry acquireWithoutToken(String key) {
        StoreKeys.requireValid(key);
        long now = System.nanoTime();
        Entry mine = new Entry(this, key, Thread.currentThread(), now, now + timeoutNanos);
        if (entries.putIfAbsent(key, mine) != null) {
            throw new IllegalStateException("prototype: " + key + " is held (no waiting here)");
        }
        return mine;
    }

    private static int slot(String key) {
        return ((key.hashCode() * 0x9E3779B9) >>> 26) * SPACING;
    }

    /** A held key and, for a single-key acquire, its lease: 48 bytes with compressed references. */
    static final class Entry implements AutoCloseable {

        private static final VarHandle HOLDS;
        private static final VarHandle WAITERS;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                HOLDS = lookup.findVarHandle(Entry.class, "holds", int.class);
                WAITERS = lookup.findVarHandle(Entry.class, "waiters", Object.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final FusedLeaseTable table;
        final String key;
        final Thread owner;
        final long acquiredNanos;
        final long expiresNanos;
        long token;
        private int holds = 1;
        private Object waiters;

        Entry(FusedLeaseTable table, String key, Thread owner, long acquiredNanos, long expiresNanos) {
            this.table = table;
            this.key = key;
            this.owner = owner;
            this.acquiredNanos = acquiredNanos;
            this.expiresNanos = expiresNanos;
        }

        long fencingToken() {
            return token;
        }

        /** One CAS makes the close idempotent and drops the hold; then the table entry goes and waiters wake. */
        @Override
        public void close() {
            if (HOLDS.compareAndSet(this, 1, 0)) {
                table.entries.remove(key, this);
                Object waiting = WAITERS.getAndSet(this, RELEASED);
                if (waiting != null && waiting != RELEASED) {
                    throw new IllegalStateException("prototype: no waiters");
                }
            }
        }
    }
}
