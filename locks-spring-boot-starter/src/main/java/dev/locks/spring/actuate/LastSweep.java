package dev.locks.spring.actuate;

import dev.locks.LocksObserver;

/**
 * How many stale locks the last sweep removed (scheduled or manual), for the {@code stale} detail of the
 * {@code locks} health: a number kept from the sweep's own event, so that health never walks the locks to
 * find it. A {@link LocksObserver} bean, so it sees the sweeps of the registry the starter builds.
 */
public final class LastSweep implements LocksObserver {

    private volatile int removed;

    /** How many stale locks the last sweep removed; 0 before the first. */
    public int removed() {
        return removed;
    }

    @Override
    public void onSweep(int removed, long nanos) {
        this.removed = removed;
    }
}
