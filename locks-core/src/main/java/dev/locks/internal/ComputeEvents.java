package dev.locks.internal;

import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import java.util.concurrent.Executor;

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

    /**
     * What runs an event of a call that ends on another thread than its caller's, with what the observer needs of the
     * caller's thread ({@link LocksObserver#callerContext()}); {@code null} when nothing is observed.
     */
    public Executor callerContext() {
        return observed ? observer.callerContext() : null;
    }

    /** As {@link #report(ComputeResult, long)}, run in {@code context} ({@link #callerContext()}). */
    public void report(ComputeResult result, long startedNanos, Executor context) {
        if (!observed || context == null) {
            return;
        }
        long nanos = clock.nanoTime() - startedNanos;
        context.execute(() -> observer.onCompute(result, nanos));
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
