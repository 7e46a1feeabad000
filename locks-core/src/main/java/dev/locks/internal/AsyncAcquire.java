package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LocksObserver.AcquireResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One {@link dev.locks.LockRegistry#acquireAsync asynchronous acquire}: the algorithm of
 * {@link LockEngine#acquire} (attempts, the wait queues, retries and wait time) as steps that hold no thread while
 * it waits. A waiting acquire is a {@link Waiter} in the same queues as waiting threads, woken by the same
 * releases and notifications, and a task on the engine's one timer ({@link AsyncWaits}) for the end of its pause;
 * either wake-up runs its next step on the engine's pool, never on the thread that woke it.
 *
 * <p>Its steps run one at a time (a count of wake-ups: whoever raises it from zero hands the acquire to the pool,
 * and the running step drains it), so its fields need no lock. Every step first looks at the future: once it is
 * done from outside (cancelled, or completed by the caller), the acquire stops waiting and leaves every queue;
 * a lease taken meanwhile is closed at once.
 *
 * <p>Its leases are born detached: no thread re-enters them, no thread's end makes them stale, and they are
 * closable from any thread; the acquiring thread's name is only their owner's description.
 */
final class AsyncAcquire {

    private final LockEngine engine;
    private final AsyncWaits waits;
    private final String solo;
    private final String[] sorted;
    private final AcquireOptions options;
    private final long timeoutNanos;
    private final Thread requester;
    /** Runs its event with what the observer needs of the caller's thread; {@code null} when nobody observes. */
    private final Executor context;
    private final CompletableFuture<Lease> future = new CompletableFuture<>();
    /** Wake-ups not yet drained; a step runs while it is above zero. */
    private final AtomicInteger runs = new AtomicInteger();
    private final Runnable drain = this::drain;
    private final long start;
    private volatile boolean settled;
    private int attempt;
    private Waiter waiter;
    private int seen;
    /** The end of the pause ({@link System#nanoTime()}), and when the waiter's ticket in a store is next refreshed. */
    private long pauseEnd;
    private long nextRefresh;
    /** Whether its ticket in a store is due for refreshes during the pause. */
    private boolean refreshing;
    /** Whether it waits out a pause (the timer is armed). */
    private boolean pausing;
    private Future<?> timer;

    AsyncAcquire(LockEngine engine, AsyncWaits waits, String solo, String[] sorted, AcquireOptions options,
            long timeoutNanos, long start) {
        this.engine = engine;
        this.waits = waits;
        this.solo = solo;
        this.sorted = sorted;
        this.options = options;
        this.timeoutNanos = timeoutNanos;
        this.requester = Thread.currentThread();
        this.context = engine.observerContext();
        this.start = start;
    }

    /**
     * Starts: the first attempt on the calling thread when {@code inline} (an attempt that cannot block), else on
     * the pool, as is everything after a first attempt that did not settle it (enlisting, the timer): nothing of
     * it may block the caller, an event loop maybe.
     */
    CompletableFuture<Lease> start(boolean inline) {
        if (inline && settledInline()) {
            return future;
        }
        waits.started(this);
        future.whenComplete((lease, error) -> {
            if (!settled) {
                wake(); // done from outside: the next step stops the wait
            }
        });
        runs.set(1);
        waits.execute(drain);
        return future;
    }

    /**
     * The first attempt, on the caller's thread: whether it settled the acquire (taken, or failed); when blocked it
     * holds nothing, and the pool makes it again and waits.
     */
    private boolean settledInline() {
        Attempt outcome;
        try {
            outcome = engine.attemptAsync(solo, sorted, start, timeoutNanos, options, 0, 0, null, requester);
        } catch (RuntimeException | Error e) {
            settled = true;
            engine.observe(context, AcquireResult.ERROR, start);
            future.completeExceptionally(e);
            return true;
        }
        if (outcome instanceof Attempt.Blocked) {
            return false;
        }
        settled = true;
        engine.observe(context, AcquireResult.ACQUIRED, start);
        future.complete((Lease) outcome);
        return true;
    }

    /** A release or a notification for one of its keys, or the end of its pause: its next step runs on the pool. */
    void wake() {
        if (runs.getAndIncrement() == 0) {
            waits.execute(drain);
        }
    }

    /** The registry closes: the acquire fails, and its next step leaves the queues. */
    void registryClosed() {
        future.completeExceptionally(new IllegalStateException(
                "this " + engine.backend() + " lock registry was closed while an asynchronous acquire of "
                        + Keys.describe(List.of(keys())) + " waited; nothing is held"));
    }

    private void drain() {
        int taken = runs.get();
        do {
            try {
                step();
            } catch (RuntimeException | Error e) {
                fail(e, AcquireResult.ERROR);
            }
            taken = runs.addAndGet(-taken);
        } while (taken != 0);
    }

    /**
     * What is due now: nothing once settled; stopping, once the future was done from outside; during a pause that
     * no signal ended, a ticket's refresh when due; else the next attempts.
     */
    private void step() {
        if (settled) {
            return;
        }
        if (future.isDone()) {
            settle();
            engine.observe(context, AcquireResult.ERROR, start);
            return;
        }
        long now = System.nanoTime();
        if (pausing && waiter.signals() == seen && now - pauseEnd < 0) {
            if (refreshing && now - nextRefresh >= 0) {
                engine.refreshWaiting(waiter);
                arm(now);
            }
            return; // a spurious wake-up (a timer of an earlier pause): the armed one stands
        }
        attempts();
    }

    /** Attempts until the keys are taken, the acquire gives up, or it must pause (then the timer is armed). */
    private void attempts() {
        pausing = false;
        if (waiter == null && engine.queuesFirstAttempt(options)) {
            waiter = engine.newAsyncWaiter(keys(), requester, this, options, start); // its first attempt queues it in the store
        }
        for (;;) {
            seen = waiter == null ? 0 : waiter.signals();
            long now = engine.clock().nanoTime();
            Attempt outcome = engine.attemptAsync(solo, sorted, attempt == 0 ? start : now, timeoutNanos, options,
                    attempt, now - start, waiter, requester);
            if (!(outcome instanceof Attempt.Blocked blocked)) {
                succeed((Lease) outcome);
                return;
            }
            long elapsed = engine.clock().nanoTime() - start;
            long pause = Retries.pauseNanos(options, attempt, elapsed);
            if (pause < 0) {
                fail(Retries.timeout(keys(), attempt + 1, Duration.ofNanos(elapsed), options,
                        engine.blocked(blocked.by())), AcquireResult.TIMEOUT);
                return;
            }
            attempt++;
            if (waiter == null) {
                waiter = engine.newAsyncWaiter(keys(), requester, this, options, start);
            }
            engine.enlist(waiter, blocked);
            if (future.isDone()) {
                return; // cancelled meanwhile: its wake-up has the drain run the step that stops it
            }
            if (pause == 0 || blocked.by().released()) {
                continue; // released meanwhile: that is the early wake-up
            }
            long at = System.nanoTime();
            pauseEnd = at + pause;
            pausing = true;
            arm(at);
            return;
        }
    }

    /**
     * Arms the one timer of this acquire: at the end of its pause, or sooner when its ticket in a store is due for
     * a refresh. A signal that came in meanwhile has raised {@link #runs}: the drain then runs another step.
     */
    private void arm(long now) {
        cancelTimer();
        long slice = engine.waitSliceNanos(waiter);
        long delay = Math.min(pauseEnd - now, slice);
        refreshing = slice != Long.MAX_VALUE;
        nextRefresh = now + (refreshing ? slice : 0);
        timer = waits.after(delay, this::wake);
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void succeed(Lease lease) {
        settle();
        engine.observe(context, AcquireResult.ACQUIRED, start);
        if (!future.complete(lease)) {
            lease.close(); // cancelled while it was taken: nothing stays held
        }
    }

    private void fail(Throwable error, AcquireResult result) {
        if (settled) {
            return;
        }
        settle();
        engine.observe(context, result, start);
        future.completeExceptionally(error);
    }

    /** Ends the wait: out of every queue, here and in a store; no timer, nothing pending. */
    private void settle() {
        settled = true;
        cancelTimer();
        try {
            if (waiter != null) {
                engine.leave(waiter);
            }
        } finally {
            waits.ended(this);
        }
    }

    private String[] keys() {
        return solo == null ? sorted : new String[] {solo};
    }

    @Override
    public String toString() {
        return "AsyncAcquire" + Arrays.toString(keys()) + (settled ? "[settled]" : "[waiting]");
    }
}
