package dev.locks.internal;

import dev.locks.HeldLock;
import dev.locks.LocksClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * What this node's table shows: its locks as {@link HeldLock}s, and the instants of leases, against one
 * reading of both clocks, so that every timestamp of a lock is the same instant each time it is shown.
 */
final class Listing {

    private final LockTable table;
    private final LocksClock clock;
    private final long originNanos;
    private final Instant origin;

    Listing(LockTable table, LocksClock clock) {
        this.table = table;
        this.clock = clock;
        this.originNanos = clock.nanoTime();
        this.origin = clock.instant();
    }

    /** The wall-clock time of a reading of the clock's nanoseconds: stable, however often it is asked. */
    Instant toInstant(long nanos) {
        return origin.plusNanos(nanos - originNanos);
    }

    /** The table's locks, sorted by key, at most {@code limit}; keys being taken are left out. */
    List<HeldLock> heldLocks(int limit) {
        long now = clock.nanoTime();
        List<HeldLock> held = new ArrayList<>(Math.min(table.size(), limit));
        for (Iterator<LockEntry> entries = table.entries().iterator(); held.size() < limit && entries.hasNext(); ) {
            HeldLock lock = of(entries.next(), now);
            if (lock != null) {
                held.add(lock);
            }
        }
        held.sort(Comparator.comparing(HeldLock::key));
        return held;
    }

    Optional<HeldLock> heldLock(String key) {
        LockEntry entry = table.get(key);
        return entry == null ? Optional.empty() : Optional.ofNullable(of(entry, clock.nanoTime()));
    }

    /** {@code entry} as shown at {@code nowNanos}; {@code null} while it is being taken (no token yet). */
    private HeldLock of(LockEntry entry, long nowNanos) {
        long token = entry.token();
        if (token == 0) {
            return null;
        }
        long expires = entry.visibleExpiresNanos();
        return new HeldLock(entry.key(), entry.ownerDescription(), token, toInstant(entry.acquiredNanos()),
                expires == Long.MAX_VALUE ? Instant.MAX : toInstant(expires),
                entry.isLost() || table.staleReason(entry, nowNanos) != null);
    }
}
