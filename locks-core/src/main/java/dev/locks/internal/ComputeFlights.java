package dev.locks.internal;

import dev.locks.Computation;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LocksClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The single flight of fetch-or-compute in one JVM: which caller computes each miss, who waits for it, who
 * replaces a stalled computer, and which result counts. Values live in a {@link ValueStore}; this class
 * only decides. Not an API.
 *
 * <p>Each key has at most one miss in flight, as one entry of a {@link ConcurrentHashMap}; its computer
 * computes outside any lock of the map. Per miss:
 * <ul>
 *   <li>the caller that starts it looks the key up in the store once more, and computes only if the value
 *       is still missing: at most one computer at a time per key;</li>
 *   <li>every later caller waits, and receives the miss's value or error (the same object);</li>
 *   <li>a computer not done within its compute timeout is replaced by the oldest waiter; with nobody
 *       waiting the miss is abandoned when it is next looked at (by a caller of the key or by
 *       {@link #snapshot()}), and that caller starts a new miss;</li>
 *   <li>the first {@link #complete} from any of its computers settles it; only the current computer can
 *       {@link #fail} it; a settled or abandoned miss accepts nothing more.</li>
 * </ul>
 */
public final class ComputeFlights {

    private final ConcurrentHashMap<String, Flight> flights = new ConcurrentHashMap<>();
    private final AtomicLong missIds = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final ValueStore store;
    private final FlightClock clock;

    public ComputeFlights(ValueStore store, LocksClock clock) {
        this.store = store;
        this.clock = new FlightClock(clock);
    }

    /**
     * Starts or joins the miss of {@code key} (the caller has just missed it in the store).
     *
     * @param hint what this caller passes on, should it start the miss and later be replaced
     * @return {@link ComputeOutcome.Compute} when the caller is to compute (first, or promoted);
     *         {@link ComputeOutcome.Hit} when the caller started the miss but found the value stored after all;
     *         {@link ComputeOutcome.Value} or {@link ComputeOutcome.Failed} when it waited for another computer
     * @throws ComputeTimeoutException when the caller's own wait time ran out (the miss goes on)
     * @throws CancellationException when the caller was interrupted while waiting (the miss goes on)
     */
    public ComputeOutcome join(String key, String hint, ComputeOptions options) {
        while (true) {
            Flight flight = flights.get(key);
            if (flight == null) {
                Flight mine = new Flight(key, Long.toUnsignedString(missIds.incrementAndGet(), 36), hint, options, clock);
                flight = flights.putIfAbsent(key, mine);
                if (flight == null) {
                    return lookAgain(key, mine);
                }
            }
            ComputeOutcome outcome = flight.await(options);
            if (outcome != null) {
                return outcome;
            }
            flights.remove(key, flight);
        }
    }

    /**
     * Settles the ticket's miss with {@code value} (stored unless {@code null}), if it is the first
     * completion of that miss from any of its computers.
     *
     * @param ttl {@code null} for the TTL of the miss's first computer
     * @return the computer that completed, or {@code null}, changing nothing, if the miss is over or unknown
     */
    public FlightComputer complete(ComputeTicket ticket, Object value, Duration ttl) {
        Flight flight = flightOf(ticket);
        if (flight == null) {
            return null;
        }
        try {
            return flight.complete(ticket.id(), value, ttl, store);
        } finally {
            removeIfOver(ticket.key(), flight);
        }
    }

    /**
     * Settles the ticket's miss with {@code error}, if the ticket is its current computer's.
     *
     * @return the computer that failed, or {@code null}, changing nothing, for a demoted computer or a miss
     *         that is over or unknown
     */
    public FlightComputer fail(ComputeTicket ticket, Throwable error) {
        Flight flight = flightOf(ticket);
        if (flight == null) {
            return null;
        }
        try {
            return flight.fail(ticket.id(), error);
        } finally {
            removeIfOver(ticket.key(), flight);
        }
    }

    /** The misses in flight, ending on the way those whose computer is overdue with nobody waiting. */
    public List<Computation> snapshot() {
        List<Computation> computations = new ArrayList<>();
        flights.forEach((key, flight) -> {
            Computation computation = flight.describe();
            if (computation == null) {
                flights.remove(key, flight);
            } else {
                computations.add(computation);
            }
        });
        return computations;
    }

    /** How many misses are in flight, counting abandoned ones not yet looked at. */
    public int size() {
        return flights.size();
    }

    private ComputeOutcome lookAgain(String key, Flight mine) {
        Object stored;
        try {
            stored = store.get(key);
        } catch (Throwable e) {
            end(key, mine, new ComputeOutcome.Failed(e));
            throw e;
        }
        if (stored == null) {
            return mine.firstTurn();
        }
        end(key, mine, new ComputeOutcome.Value(stored));
        return new ComputeOutcome.Hit(stored);
    }

    private void end(String key, Flight flight, ComputeOutcome outcome) {
        flight.end(outcome);
        flights.remove(key, flight);
    }

    private Flight flightOf(ComputeTicket ticket) {
        return ticket.key() == null || ticket.id() == null ? null : flights.get(ticket.key());
    }

    private void removeIfOver(String key, Flight flight) {
        if (flight.isOver()) {
            flights.remove(key, flight);
        }
    }
}
