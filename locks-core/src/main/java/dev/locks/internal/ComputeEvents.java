package dev.locks.internal;

import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;

/**
 * Reports how fetch-or-compute calls ended to a {@link LocksObserver}, timed on the cache's clock. With
 * {@link LocksObserver#NONE} it reads no clock and calls nothing. An observer that throws is logged and
 * ignored: it never changes what a caller receives. Not an API.
 */
final class ComputeEvents {

    private final LocksObserver observer;
    private final LocksClock clock;
    private final boolean observed;

    public ComputeEvents(LocksObserver observer, LocksClock clock) {
        this.observer = GuardedObserver.guard(observer);
        this.clock = clock;
        this.observed = this.observer != LocksObserver.NONE;
    }

    /** The start of a call, to pass to {@link #report}; 0 when nothing is observed. */
    public long start() {
        return observed ? clock.nanoTime() : 0L;
    }

    /** Reports an event that takes no time of its own ({@link ComputeResult#UNREADABLE}). */
    public void count(ComputeResult event) {
        if (observed) {
            observer.onCompute(event, 0L);
        }
    }

    /** Reports that a call which started at {@code startedNanos} ended with {@code result}. */
    public void report(ComputeResult result, long startedNanos) {
        if (!observed) {
            return;
        }
        observer.onCompute(result, clock.nanoTime() - startedNanos);
    }
}
