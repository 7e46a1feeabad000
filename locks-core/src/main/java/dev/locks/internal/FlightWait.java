package dev.locks.internal;

import dev.locks.ComputeOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A caller of a {@link Flight} that waits without a thread ({@link ComputeEngine#beginAsync}): a future, a place in
 * the flight's queue of waiters, and at most one timer task at a time for its next deadline (its turn to time the
 * computer when it is the oldest, or the end of its wait time). Where a parked thread would be unparked, this waiter
 * looks at the flight again on the pool of {@link AsyncWaits}; a settlement completes its future there too, so
 * the future's dependent stages never run on the thread that settled the flight (a backend client's notice thread,
 * say). Ten thousand of them waiting for one key cost memory, not threads.
 *
 * <p>Cancelling the future makes the caller leave the flight, promoting nobody for it, on the pool: the canceller's
 * thread takes no lock (cancelling the timer task takes its queue's). A turn decided at the moment of the
 * cancellation goes to {@code unwanted}, which hands it to the next waiter.
 */
final class FlightWait {

    private final AsyncWaits waits;
    private final Consumer<ComputeOutcome.Compute> unwanted;
    private final CompletableFuture<ComputeOutcome> future = new CompletableFuture<>();
    private final AtomicReference<Future<?>> timer = new AtomicReference<>();
    /** Set under the flight's lock when the caller joins, before any look or wake-up can reach it. */
    private Flight flight;
    private Flight.Waiter me;

    FlightWait(AsyncWaits waits, Consumer<ComputeOutcome.Compute> unwanted) {
        this.waits = waits;
        this.unwanted = unwanted;
        future.whenComplete((outcome, error) -> {
            if (future.isCancelled()) {
                // the timer's queue and the flight take locks: never on the canceller's thread (an event loop's)
                waits.execute(() -> {
                    cancelTimer();
                    leave();
                });
            }
        });
    }

    /** What the caller receives: the flight's result, its turn, or its wait time's end. */
    CompletableFuture<ComputeOutcome> future() {
        return future;
    }

    /** The caller joined {@code flight} as {@code me}; under the flight's lock. */
    void joined(Flight flight, Flight.Waiter me) {
        this.flight = flight;
        this.me = me;
    }

    /** The first look, on the caller's thread, right after it joined. */
    void start() {
        look();
    }

    /** Where a parked waiter would be unparked: it looks again, on the pool. Under the flight's lock; never blocks. */
    void wake() {
        waits.execute(this::look);
    }

    /** The flight is settled: the future completes on the pool. Under the flight's lock; never blocks. */
    void settled(ComputeOutcome outcome) {
        cancelTimer();
        waits.execute(() -> deliver(outcome));
    }

    private void leave() {
        if (flight != null) {
            flight.leaveAsync(me);
        }
    }

    /**
     * One look at the flight, as a parked thread's after a wake-up; looks of one waiter are one at a time, so that
     * what one leaves in {@link Flight.Waiter#parkNanos} is read by the same look.
     */
    private synchronized void look() {
        if (future.isDone()) {
            return;
        }
        ComputeOutcome outcome;
        try {
            outcome = flight.look(me);
        } catch (RuntimeException e) {
            cancelTimer();
            future.completeExceptionally(e);
            return;
        }
        if (outcome != null) {
            cancelTimer();
            deliver(outcome);
            return;
        }
        long park = me.parkNanos;
        Future<?> next = park == FlightClock.FOREVER ? null : waits.after(flight.slice(park), this::look);
        Future<?> previous = timer.getAndSet(next);
        if (previous != null) {
            previous.cancel(false);
        }
    }

    private void deliver(ComputeOutcome outcome) {
        if (!future.complete(outcome) && outcome instanceof ComputeOutcome.Compute turn) {
            unwanted.accept(turn); // cancelled as its turn came: the next waiter takes it
        }
    }

    private void cancelTimer() {
        Future<?> previous = timer.getAndSet(null);
        if (previous != null) {
            previous.cancel(false);
        }
    }
}
