package dev.locks.internal;

import dev.locks.Computation;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One miss of one key: its computers (the current one last), the callers waiting for its result in the
 * order they came, and the result once there is one. One lock guards it all; waiters park in their own
 * threads, outside that lock, or wait without a thread ({@link FlightWait}: woken where a thread would be unparked,
 * and by a timer at its deadline), and the oldest waiter times the current computer and promotes itself when that
 * computer is overdue: there is no helper thread.
 *
 * <p>The result is also a volatile field, written before the waiters are unparked: a waiter woken by the
 * settlement reads it and returns without taking the lock again, so a thousand waiters leave at once instead
 * of one after the other through the lock (what a {@code Condition}'s {@code signalAll} would make them do).
 * The lock is taken again only when a waiter wakes to find no result (its turn to time the computer, its
 * wait time, an interrupt, a clock slice).
 *
 * <p>A flight runs until it is <em>settled</em> (a value or an error, which every waiter receives) or
 * <em>abandoned</em> (its computer is overdue and nobody waits). Either way it is over: it accepts nothing
 * more, and a caller that finds it starts a new miss. Used by {@link ComputeFlights} only.
 *
 * <p>A flight of a key that was invalidated meanwhile ({@link #invalidate}) still settles its computers and
 * waiters, but stores nothing.
 *
 * <p>For a distributed backend the current computer may be <em>untimed</em> ({@link #retime}): it waits for
 * a computation on another node, which that node times, so nobody here is promoted over it.
 */
final class Flight {

    private final String key;
    private final String missId;
    private final String hint;
    private final Duration ttl;
    /**
     * How long after its TTL the value stays readable as stale ({@link Duration#ZERO}: not at all); {@code null}
     * when the miss's options ask for neither refresh-ahead nor stale-if-error (no write time need be kept).
     */
    private final Duration staleIfError;
    private final FlightClock clock;
    private final FlightComputer first;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private final List<FlightComputer> computers = new ArrayList<>(2);
    private long deadline;
    private boolean untimed;
    /** Written under the lock, read without it by waiters that were unparked. */
    private volatile ComputeOutcome result;
    private boolean over;
    private boolean invalidated;
    private volatile RemoteComputeFlight attachment;

    /** A miss of {@code key} whose first computer is the calling thread, from now on. */
    Flight(String key, String missId, String hint, ComputeOptions options, FlightClock clock) {
        this.key = key;
        this.missId = missId;
        this.hint = hint;
        this.ttl = options.ttl();
        this.staleIfError = options.staleIfError()
                .orElse(options.refreshAfter().isPresent() ? Duration.ZERO : null);
        this.clock = clock;
        this.first = startComputer(Thread.currentThread().getName(), options.computeTimeout(), clock.now());
    }

    String missId() {
        return missId;
    }

    Duration staleIfError() {
        return staleIfError;
    }

    String key() {
        return key;
    }

    /**
     * The key was invalidated while this flight runs: it goes on for its computers and the waiters that joined
     * it, but its result is not stored. Once this returns, no completion of this flight can store anything.
     */
    void invalidate() {
        lock.lock();
        try {
            invalidated = true;
        } finally {
            lock.unlock();
        }
    }

    /** What the first computer receives. */
    ComputeOutcome.Compute firstTurn() {
        return new ComputeOutcome.Compute(first.ticket(key), hint);
    }

    /**
     * Joins as a waiter and waits for the result, or for this caller's promotion, or for the end of its own
     * wait time.
     *
     * @return {@link ComputeOutcome.Value} or {@link ComputeOutcome.Failed} once settled;
     *         {@link ComputeOutcome.Compute} when this caller was promoted; {@code null} when the flight was
     *         already over (the caller starts a new miss)
     * @throws ComputeTimeoutException when this caller's own wait time ran out
     * @throws CancellationException when this caller was interrupted (its interrupt status is set again)
     */
    ComputeOutcome await(ComputeOptions options) {
        Waiter me;
        ComputeOutcome outcome;
        lock.lock();
        try {
            long at = clock.now();
            if (overAt(at)) {
                return null;
            }
            me = new Waiter(Thread.currentThread(), options, at);
            waiters.addLast(me);
            outcome = next(me);
        } finally {
            lock.unlock();
        }
        return outcome != null ? outcome : waitAs(me);
    }

    /**
     * As {@link #await}, for a caller that waits without a thread: its {@code wait} is woken (on the pool of
     * {@code wait}) whenever {@link #await}'s thread would be unparked, and by a timer at its next deadline.
     *
     * @return whether the caller joined; false when the flight was already over (the caller starts a new miss)
     */
    boolean awaitAsync(ComputeOptions options, FlightWait wait) {
        lock.lock();
        try {
            long at = clock.now();
            if (overAt(at)) {
                return false;
            }
            Waiter me = new Waiter(wait, options, at);
            waiters.addLast(me);
            wait.joined(this, me);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * One look of an asynchronous waiter at the flight, under the lock: the result, its turn, or the end of its wait
     * time, as a thread's {@link #next} would decide; else {@code null}, with how long until it looks again in
     * {@link Waiter#parkNanos} ({@link FlightClock#FOREVER}: until woken).
     *
     * @throws ComputeTimeoutException when the caller's own wait time ran out
     */
    ComputeOutcome look(Waiter me) {
        lock.lock();
        try {
            return next(me);
        } finally {
            lock.unlock();
        }
    }

    /** An asynchronous waiter stops waiting (its caller cancelled): it leaves, and nobody is promoted for it. */
    void leaveAsync(Waiter me) {
        lock.lock();
        try {
            if (!me.decided && result == null) {
                me.decided = true;
                leave(me);
            }
        } finally {
            lock.unlock();
        }
    }

    /** How long the clock lets an asynchronous waiter wait before it looks again (a slice with a manual clock). */
    long slice(long nanos) {
        return clock.slice(nanos);
    }

    /**
     * Settles this flight with the value of any of its computers (the first to call wins), storing it first
     * unless it is {@code null} (or there is no store: a remote store took it already), so that a caller who comes after
     * the flight finds the value.
     *
     * @param ttl {@code null} for the TTL of the first computer
     * @return the computer, or {@code null}, changing nothing, if the flight is over or the ticket is not one
     *         of its computers'
     */
    FlightComputer complete(String ticketId, Object value, Duration ttl, ValueStore store) {
        lock.lock();
        try {
            FlightComputer computer = over ? null : computer(ticketId);
            if (computer != null) {
                store(value, ttl == null ? this.ttl : ttl, store);
                settle(new ComputeOutcome.Value(value));
            }
            return computer;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Settles this flight with {@code error}, if the ticket is its current computer's.
     *
     * @return the computer, or {@code null}, changing nothing, for a demoted computer or a flight that is over
     */
    FlightComputer fail(String ticketId, Throwable error) {
        lock.lock();
        try {
            FlightComputer current = computers.get(computers.size() - 1);
            if (over || !current.id().equals(ticketId)) {
                return null;
            }
            settle(new ComputeOutcome.Failed(error));
            return current;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Settles this flight with {@code outcome}, decided elsewhere (by a distributed backend), if the ticket
     * is one of its computers'; stores nothing.
     *
     * @return false, changing nothing, if the flight is over or the ticket is not one of its computers'
     */
    boolean end(String ticketId, ComputeOutcome outcome) {
        lock.lock();
        try {
            if (over || computer(ticketId) == null) {
                return false;
            }
            settle(outcome);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Times the current computer afresh: its compute timeout runs from now, and so does its
     * {@link Computation#startedAt()}; {@code null} leaves it untimed, while it waits for a computation that
     * another node times.
     *
     * @return false, changing nothing, if the flight is over or the ticket is not its current computer's
     */
    boolean retime(String ticketId, Duration computeTimeout) {
        lock.lock();
        try {
            if (!isCurrent(ticketId)) {
                return false;
            }
            long now = clock.now();
            untimed = computeTimeout == null;
            if (!untimed) {
                deadline = now + FlightClock.nanos(computeTimeout);
                int last = computers.size() - 1;
                computers.set(last, computers.get(last).restartedAt(now));
            }
            unparkHead(); // the oldest waiter reads the new deadline
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The current computer gives up its turn: the oldest waiter is promoted now; with nobody waiting the
     * flight is abandoned.
     *
     * @return whether a waiter takes the turn; false also if the ticket is not the current computer's
     */
    boolean handOver(String ticketId) {
        lock.lock();
        try {
            if (!isCurrent(ticketId)) {
                return false;
            }
            if (waiters.isEmpty()) {
                over = true;
                return false;
            }
            untimed = false;
            deadline = clock.now();
            unparkHead();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the ticket is one of this flight's computers'. */
    boolean hasComputer(String ticketId) {
        return computerOf(ticketId) != null;
    }

    /** The ticket's computer among this flight's, or {@code null}. */
    FlightComputer computerOf(String ticketId) {
        lock.lock();
        try {
            return computer(ticketId);
        } finally {
            lock.unlock();
        }
    }

    /** What a node across nodes keeps with this flight; {@code null} until {@link #attach}. */
    RemoteComputeFlight attachment() {
        return attachment;
    }

    void attach(RemoteComputeFlight attachment) {
        this.attachment = attachment;
    }

    /** Whether it is settled or abandoned. */
    boolean isOver() {
        lock.lock();
        try {
            return over;
        } finally {
            lock.unlock();
        }
    }

    /** This flight as operations see it, or {@code null} when it is over (abandoning it first if it is idle). */
    Computation describe() {
        lock.lock();
        try {
            if (overAt(clock.now())) {
                return null;
            }
            FlightComputer current = computers.get(computers.size() - 1);
            return new Computation(key, current.name(), waiters.size(), clock.instantOf(current.startedNanos()));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Parks until the result is there, read without the lock (the common way out: one lock acquisition per
     * waiter, to join), or until this waiter is to act, decided under the lock ({@link #next}).
     */
    private ComputeOutcome waitAs(Waiter me) {
        while (true) {
            clock.park(this, me.parkNanos); // an unpark before this returns at once: no wake-up is lost
            ComputeOutcome settled = result;
            if (settled != null) {
                return settled;
            }
            lock.lock();
            try {
                settled = next(me);
            } finally {
                lock.unlock();
            }
            if (settled != null) {
                return settled;
            }
        }
    }

    /**
     * Under the lock: the result if there is one; else this waiter's turn if it is the oldest and the computer
     * is overdue; else it leaves at the end of its wait time or when interrupted; else {@code null}, with how
     * long to park next in {@link Waiter#parkNanos}.
     */
    private ComputeOutcome next(Waiter me) {
        if (result != null) {
            return result;
        }
        if (me.decided) {
            return null; // an asynchronous waiter that left or was promoted: a late look changes nothing
        }
        if (me.async == null && Thread.interrupted()) {
            leave(me);
            Thread.currentThread().interrupt();
            throw new CancellationException("Interrupted while waiting for the computation of '" + key
                    + "'; the computation goes on for the other callers");
        }
        long now = clock.now();
        if (isHead(me) && overdue(now)) {
            return promote(me, now);
        }
        if (me.expired(now)) {
            me.decided = true;
            leave(me);
            throw new ComputeTimeoutException(key, me.waitTime);
        }
        me.parkNanos = isHead(me) && !untimed ? Math.min(deadline - now, me.remaining(now)) : me.remaining(now);
        return null;
    }

    private ComputeOutcome promote(Waiter me, long now) {
        me.decided = true;
        waiters.removeFirst();
        FlightComputer computer = startComputer(me.name, me.computeTimeout, now);
        unparkHead(); // the next oldest waiter now times the new computer
        return new ComputeOutcome.Compute(computer.ticket(key), hint);
    }

    private FlightComputer startComputer(String name, Duration computeTimeout, long now) {
        FlightComputer computer = FlightComputer.of(missId, computers.size(), name, now);
        computers.add(computer);
        deadline = now + FlightClock.nanos(computeTimeout);
        untimed = false;
        return computer;
    }

    private void leave(Waiter me) {
        boolean head = isHead(me);
        waiters.remove(me);
        if (head) {
            unparkHead(); // the next oldest waiter now times the computer
        }
    }

    /** Wakes the oldest waiter, the only one that times the computer. */
    private void unparkHead() {
        Waiter head = waiters.peekFirst();
        if (head != null) {
            head.wake();
        }
    }

    private boolean isHead(Waiter waiter) {
        return waiters.peekFirst() == waiter;
    }

    /** Whether the flight is over, abandoning it first if its computer is overdue and nobody waits. */
    private boolean overAt(long now) {
        if (!over && waiters.isEmpty() && overdue(now)) {
            over = true;
        }
        return over;
    }

    private boolean overdue(long now) {
        return !untimed && now - deadline >= 0;
    }

    private boolean isCurrent(String ticketId) {
        return !over && computers.get(computers.size() - 1).id().equals(ticketId);
    }

    private FlightComputer computer(String ticketId) {
        for (FlightComputer computer : computers) {
            if (computer.id().equals(ticketId)) {
                return computer;
            }
        }
        return null;
    }

    private void store(Object value, Duration ttl, ValueStore store) {
        if (value == null || store == null || invalidated) {
            return;
        }
        try {
            store.put(key, value, ttl, staleIfError == null ? Duration.ZERO : staleIfError);
        } catch (Throwable e) {
            settle(new ComputeOutcome.Failed(e)); // the waiters must not hang on a store that failed
            throw e;
        }
    }

    /** Publishes the result, then unparks every waiter: each returns with it, without the lock. */
    private void settle(ComputeOutcome outcome) {
        result = outcome;
        over = true;
        for (Waiter waiter : waiters) {
            waiter.decided = true;
            if (waiter.async == null) {
                LockSupport.unpark(waiter.thread);
            } else {
                waiter.async.settled(outcome);
            }
        }
        waiters.clear();
    }

    /** A caller waiting for the flight's result: a parked thread, or an asynchronous {@link FlightWait}. */
    static final class Waiter {

        final Thread thread;
        final FlightWait async;
        final String name;
        final Duration computeTimeout;
        final Duration waitTime;
        final long waitDeadline;
        /** How long to park next; written by its own thread (or look) under the flight's lock. */
        long parkNanos;
        /**
         * Whether its way out is decided (the result, its turn, its wait time, it left), under the flight's lock: a
         * later look of an asynchronous waiter changes nothing.
         */
        boolean decided;

        Waiter(Thread thread, ComputeOptions options, long now) {
            this(thread, null, thread.getName(), options, now);
        }

        Waiter(FlightWait async, ComputeOptions options, long now) {
            this(null, async, Thread.currentThread().getName(), options, now);
        }

        private Waiter(Thread thread, FlightWait async, String name, ComputeOptions options, long now) {
            this.thread = thread;
            this.async = async;
            this.name = name;
            this.computeTimeout = options.computeTimeout();
            this.waitTime = options.waitTime().orElse(null);
            this.waitDeadline = waitTime == null ? 0 : now + FlightClock.nanos(waitTime);
        }

        /** What unparking its thread is to a parked waiter: it looks at the flight again soon. */
        void wake() {
            if (async == null) {
                LockSupport.unpark(thread);
            } else {
                async.wake();
            }
        }

        boolean expired(long now) {
            return waitTime != null && now - waitDeadline >= 0;
        }

        long remaining(long now) {
            return waitTime == null ? FlightClock.FOREVER : waitDeadline - now;
        }
    }
}
