package dev.locks.internal;

import dev.locks.Computation;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.internal.ComputeValues.Claim;
import dev.locks.spi.RemoteComputeStore.Miss;
import dev.locks.spi.RemoteComputeStore.Ticket;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This node's part in the computation of one key across nodes, kept with the node's flight of that key (its
 * lifetime is the flight's): which miss the node's one caller in the protocol computes or waits for, and
 * where that caller parks until a notice ends the miss or tells it to look at the store again. Not an API.
 */
final class RemoteComputeFlight {

    private final ComputeTicket flight;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile Miss miss;
    private Claim.Wait waitingFor;
    private Ticket computer;
    private ComputeTicket localComputer;
    private long computingSince;
    private ComputeOutcome outcome;
    private boolean poked;

    /** @param flight a ticket of the node's flight, by which a notice settles it */
    public RemoteComputeFlight(ComputeTicket flight) {
        this.flight = flight;
    }

    ComputeTicket flight() {
        return flight;
    }

    /** The miss this node computes or waits for; {@code null} before its first claim. */
    Miss miss() {
        return miss;
    }

    boolean isAbout(String missId) {
        Miss current = miss;
        return current != null && current.id().equals(missId);
    }

    /**
     * This node's caller computes {@code computer}'s turn, as the flight's computer {@code local}, since
     * {@code nanos}.
     */
    void computing(Miss miss, Ticket computer, ComputeTicket local, long nanos) {
        lock.lock();
        try {
            this.miss = miss;
            this.waitingFor = null;
            this.computer = computer;
            this.localComputer = local;
            this.computingSince = nanos;
        } finally {
            lock.unlock();
        }
    }

    /** This node's caller waits for another node's computer. */
    void waiting(Claim.Wait wait) {
        lock.lock();
        try {
            this.miss = wait.miss();
            this.waitingFor = wait;
        } finally {
            lock.unlock();
        }
    }

    /** The flight's computer that holds {@code ticket}'s turn on this node, or {@code null}. */
    ComputeTicket localComputerOf(Ticket ticket) {
        lock.lock();
        try {
            return ticket.equals(computer) ? localComputer : null;
        } finally {
            lock.unlock();
        }
    }

    /** When {@code ticket}'s turn began on this node (on the cache's clock), or {@code orElse}. */
    long computingSince(Ticket ticket, long orElse) {
        lock.lock();
        try {
            return ticket.equals(computer) ? computingSince : orElse;
        } finally {
            lock.unlock();
        }
    }

    /** Records how the miss ended and wakes the waiting caller; only the first outcome counts. */
    void deliver(ComputeOutcome ended) {
        lock.lock();
        try {
            if (outcome == null) {
                outcome = ended;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    ComputeOutcome outcome() {
        lock.lock();
        try {
            return outcome;
        } finally {
            lock.unlock();
        }
    }

    /** Something happened to the key that this node cannot place: the waiting caller looks at the store again. */
    void poke() {
        lock.lock();
        try {
            poked = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Parks the waiting caller for at most {@code nanos}, until an outcome or a poke.
     *
     * @return whether it was woken (by an outcome, or a poke, which this consumes) rather than timed out
     */
    boolean await(long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (outcome == null && !poked && left > 0) {
                left = changed.awaitNanos(left);
            }
            boolean woken = outcome != null || poked;
            poked = false;
            return woken;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code local} (this node's flight, as the node-local single flight sees it) as operations see it: while
     * this node waits, the computer is the other node's and this node's caller in the protocol is one more
     * waiter; while it computes here, the computer's description gets the node.
     */
    Computation describe(Computation local, String node) {
        lock.lock();
        try {
            if (waitingFor != null && outcome == null) {
                return new Computation(local.key(), waitingFor.computer(), local.waiters() + 1, waitingFor.startedAt());
            }
        } finally {
            lock.unlock();
        }
        return new Computation(local.key(), local.computer() + " @ " + node, local.waiters(), local.startedAt());
    }
}
