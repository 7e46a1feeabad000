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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The single flight of fetch-or-compute in one JVM: which caller computes each miss, who waits for it, who
 * replaces a stalled computer, and which result counts. It keeps no values: {@link ComputeEngine}'s backing looks
 * the key up again when a caller starts a miss ({@link ComputeBacking#turn}), and a value is stored into a
 * {@link ValueStore} under the flight's lock only when {@link #complete(ComputeTicket, Object, Duration, ValueStore)}
 * is given one (in memory). This class only decides. Not an API.
 *
 * <p>Each key has at most one miss in flight, as one entry of a {@link ConcurrentHashMap}; its computer
 * computes outside any lock of the map. Per miss:
 * <ul>
 *   <li>the caller that starts it gets the first turn at once (its backing then looks the key up once more, and
 *       it computes only if the value is still missing): at most one computer at a time per key;</li>
 *   <li>every later caller waits, and receives the miss's value or error (the same object);</li>
 *   <li>a computer not done within its compute timeout is replaced by the oldest waiter; with nobody
 *       waiting the miss is abandoned when it is next looked at (by a caller of the key or by
 *       {@link #snapshot()}), and that caller starts a new miss;</li>
 *   <li>the first {@link #complete} from any of its computers settles it; only the current computer can
 *       {@link #fail} it; a settled or abandoned miss accepts nothing more;</li>
 *   <li>{@link #invalidate} takes the miss of the key out of the way: callers that come later start a new
 *       miss, while the old one still settles its own computers and waiters but stores nothing.</li>
 * </ul>
 *
 * <p>In front of a remote store ({@link StoreComputeBacking}) the node's caller with the turn takes part in the
 * protocol across nodes for all the node's callers of that key, which wait here. It keeps its own state with the
 * flight ({@link #attach}, a {@link RemoteComputeFlight}),
 * leaves its computer untimed while the computation runs on another node and times it from when it computes
 * here ({@link #retime}), passes the turn on when its caller stops waiting ({@link #handOver}), and settles the
 * flight with what the protocol decided ({@link #settle}). The hit path is the backend's own.
 */
final class ComputeFlights {

    private final ConcurrentHashMap<String, Flight> flights = new ConcurrentHashMap<>();
    /** Flights whose key was invalidated while they ran, by miss id: still reachable by their tickets. */
    private final ConcurrentHashMap<String, Flight> invalidated = new ConcurrentHashMap<>();
    private final AtomicLong missIds = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final FlightClock clock;

    /** Flights timed on {@code clock}: the first caller of a miss gets {@link ComputeOutcome.Compute} at once. */
    public ComputeFlights(LocksClock clock) {
        this.clock = new FlightClock(clock);
    }

    /**
     * Starts or joins the miss of {@code key} (the caller has just missed it in the store).
     *
     * @param hint what this caller passes on, should it start the miss and later be replaced
     * @return {@link ComputeOutcome.Compute} when the caller is to compute (first, or promoted);
     *         {@link ComputeOutcome.Value} or {@link ComputeOutcome.Failed} when it waited for another computer
     * @throws ComputeTimeoutException when the caller's own wait time ran out (the miss goes on)
     * @throws CancellationException when the caller was interrupted while waiting (the miss goes on)
     */
    public ComputeOutcome join(String key, String hint, ComputeOptions options) {
        return join(key, hint, options, turn -> turn, flight -> flight.await(options));
    }

    /**
     * As {@link #join}, for a caller that waits without a thread: the future completes as {@link #join} would return
     * or throw ({@link ComputeTimeoutException} when the caller's own wait time ran out). Cancelling it while the
     * caller waits makes it leave the miss (which goes on); a turn it is given at that moment goes to the next waiter.
     *
     * @param waits the pool on which the caller looks at its flight again, and the timer of its deadlines
     */
    public CompletableFuture<ComputeOutcome> joinAsync(String key, String hint, ComputeOptions options,
            AsyncWaits waits) {
        return join(key, hint, options, CompletableFuture::completedFuture, flight -> {
            FlightWait wait = new FlightWait(waits, turn -> handOver(turn.ticket()));
            if (!flight.awaitAsync(options, wait)) {
                return null;
            }
            wait.start();
            return wait.future();
        });
    }

    /**
     * Starts the miss of {@code key}, its first turn given to {@code first}, or joins the one in flight with
     * {@code await}, which returns {@code null} when that flight was over already: it is then taken out of the way
     * and the caller tries again.
     */
    private <R> R join(String key, String hint, ComputeOptions options, Function<ComputeOutcome.Compute, R> first,
            Function<Flight, R> await) {
        while (true) {
            Flight flight = flights.get(key);
            if (flight == null) {
                Flight mine = newFlight(key, hint, options);
                flight = flights.putIfAbsent(key, mine);
                if (flight == null) {
                    return first.apply(mine.firstTurn());
                }
            }
            R joined = await.apply(flight);
            if (joined != null) {
                return joined;
            }
            flights.remove(key, flight);
        }
    }

    /** A new miss of {@code key}, whose first computer is the calling thread. */
    private Flight newFlight(String key, String hint, ComputeOptions options) {
        return new Flight(key, Long.toUnsignedString(missIds.incrementAndGet(), 36), hint, options, clock);
    }

    /**
     * Starts a background refresh of {@code key} as a miss of its own, unless a miss of the key is in flight here
     * already (which makes the refresh needless).
     *
     * @return {@link ComputeOutcome.Compute} when the refresh has the turn (its backing decides whether the value
     *         is still young); {@code null}, changing nothing, when a miss of the key is in flight
     */
    public ComputeOutcome joinRefresh(String key, ComputeOptions options) {
        if (flights.containsKey(key)) {
            return null;
        }
        Flight mine = newFlight(key, "", options);
        if (flights.putIfAbsent(key, mine) != null) {
            return null;
        }
        return mine.firstTurn();
    }

    /**
     * The stale window the ticket's miss stores its value with ({@link Duration#ZERO}: none); {@code null} when its
     * options ask for neither refresh-ahead nor stale-if-error, or the miss is unknown here.
     */
    public Duration staleIfError(ComputeTicket ticket) {
        Flight flight = flightOf(ticket);
        return flight == null ? null : flight.staleIfError();
    }

    /**
     * Makes the miss of {@code key} in flight, if any, one whose result is not stored, and lets every caller
     * that comes after this returns start a new miss. The old miss still settles the computers and waiters it
     * has (their tickets still work). The caller removes the stored value after this, so that no completion of
     * the old miss can store a value after the removal.
     */
    public void invalidate(String key) {
        Flight flight = flights.get(key);
        if (flight == null) {
            return;
        }
        invalidated.put(flight.missId(), flight); // reachable by its tickets before it leaves the key
        flights.remove(key, flight);
        flight.invalidate();
        if (flight.isOver()) {
            invalidated.remove(flight.missId(), flight);
        }
    }

    /** As {@link #complete(ComputeTicket, Object, Duration, ValueStore)}, storing nothing. */
    public FlightComputer complete(ComputeTicket ticket, Object value, Duration ttl) {
        return complete(ticket, value, ttl, null);
    }

    /**
     * Settles the ticket's miss with {@code value}, if it is the first completion of that miss from any of its
     * computers; stores it first into {@code store} (unless it or {@code value} is {@code null}, or the key was
     * invalidated meanwhile), under the flight's lock, so that a caller who comes after the flight finds it.
     *
     * @param ttl {@code null} for the TTL of the miss's first computer
     * @return the computer that completed, or {@code null}, changing nothing, if the miss is over or unknown
     */
    public FlightComputer complete(ComputeTicket ticket, Object value, Duration ttl, ValueStore store) {
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
     * When the ticket's computer began its turn (on the flights' clock), if it is a computer of a miss in flight;
     * else {@code orElse}.
     */
    public long computingSince(ComputeTicket ticket, long orElse) {
        Flight flight = flightOf(ticket);
        FlightComputer computer = flight == null ? null : flight.computerOf(ticket.id());
        return computer == null ? orElse : computer.startedNanos();
    }

    /** Whether a miss of {@code key} is in flight here (over or not). No lock. */
    public boolean inFlight(String key) {
        return flights.containsKey(key);
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

    /**
     * Settles the ticket's miss with {@code outcome}, decided elsewhere (by a distributed backend), if the
     * ticket is one of its computers' (the current one or not); stores nothing.
     *
     * @return false, changing nothing, if the miss is over or unknown
     */
    public boolean settle(ComputeTicket ticket, ComputeOutcome outcome) {
        Flight flight = flightOf(ticket);
        if (flight == null) {
            return false;
        }
        try {
            return flight.end(ticket.id(), outcome);
        } finally {
            removeIfOver(ticket.key(), flight);
        }
    }

    /**
     * Times the ticket's computer afresh, from now: after {@code computeTimeout} the oldest waiter replaces
     * it. {@code null} leaves it untimed, for as long as it waits for a computation that another node times.
     *
     * @return false, changing nothing, if the ticket is not the current computer's of a miss in flight
     */
    public boolean retime(ComputeTicket ticket, Duration computeTimeout) {
        Flight flight = flightOf(ticket);
        return flight != null && flight.retime(ticket.id(), computeTimeout);
    }

    /**
     * The ticket's computer gives up its turn (its caller stopped waiting): the oldest waiter takes it now;
     * with nobody waiting the miss ends.
     *
     * @return whether a waiter takes the turn; false also if the ticket is not the current computer's
     */
    public boolean handOver(ComputeTicket ticket) {
        Flight flight = flightOf(ticket);
        if (flight == null) {
            return false;
        }
        try {
            return flight.handOver(ticket.id());
        } finally {
            removeIfOver(ticket.key(), flight);
        }
    }

    /**
     * Keeps {@code attachment} (the node's state across nodes) with the ticket's miss, for as long as it is in
     * flight.
     *
     * @return false if the miss is over or unknown
     */
    public boolean attach(ComputeTicket ticket, RemoteComputeFlight attachment) {
        Flight flight = flightOf(ticket);
        if (flight == null || !flight.hasComputer(ticket.id())) {
            return false;
        }
        flight.attach(attachment);
        return true;
    }

    /** What {@link #attach} kept with the ticket's miss, if that miss is in flight; else {@code null}. */
    public RemoteComputeFlight attachment(ComputeTicket ticket) {
        Flight flight = flightOf(ticket);
        return flight == null || !flight.hasComputer(ticket.id()) ? null : flight.attachment();
    }

    /** What {@link #attach} kept with the miss of {@code key} in flight, if any; else {@code null}. No lock. */
    public RemoteComputeFlight attachment(String key) {
        Flight flight = flights.get(key);
        return flight == null ? null : flight.attachment();
    }

    /**
     * What {@link #attach} kept with every miss of {@code key} in flight: the current one, then those
     * {@linkplain #invalidate invalidated} while they run. No lock.
     */
    public List<RemoteComputeFlight> attachments(String key) {
        List<RemoteComputeFlight> attachments = new ArrayList<>(2);
        RemoteComputeFlight current = attachment(key);
        if (current != null) {
            attachments.add(current);
        }
        if (!invalidated.isEmpty()) {
            invalidated.values().forEach(flight -> {
                if (flight.key().equals(key) && flight.attachment() != null) {
                    attachments.add(flight.attachment());
                }
            });
        }
        return attachments;
    }

    /** The misses in flight, ending on the way those whose computer is overdue with nobody waiting. */
    public List<Computation> snapshot() {
        List<Computation> computations = new ArrayList<>();
        describe(flights, computations);
        describe(invalidated, computations);
        return computations;
    }

    /** How many misses are in flight, counting abandoned ones not yet looked at. */
    public int size() {
        return flights.size() + invalidated.size();
    }

    private static void describe(ConcurrentHashMap<String, Flight> flights, List<Computation> into) {
        flights.forEach((id, flight) -> {
            Computation computation = flight.describe();
            if (computation == null) {
                flights.remove(id, flight);
            } else {
                into.add(computation);
            }
        });
    }

    private Flight flightOf(ComputeTicket ticket) {
        if (ticket.key() == null || ticket.id() == null) {
            return null;
        }
        Flight current = flights.get(ticket.key());
        if (current != null && FlightComputer.isOfMiss(ticket, current.missId()) || invalidated.isEmpty()) {
            return current;
        }
        Flight old = invalidated.get(FlightComputer.missOf(ticket));
        return old != null && old.key().equals(ticket.key()) ? old : current;
    }

    private void removeIfOver(String key, Flight flight) {
        if (flight.isOver()) {
            flights.remove(key, flight);
            invalidated.remove(flight.missId(), flight);
        }
    }
}
