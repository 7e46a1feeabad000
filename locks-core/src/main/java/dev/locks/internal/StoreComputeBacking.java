package dev.locks.internal;

import dev.locks.Computation;
import dev.locks.ComputeFailedException;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.LocksClock;
import dev.locks.internal.ComputeValues.Claim;
import dev.locks.spi.RemoteComputeStore.Claimant;
import dev.locks.spi.RemoteComputeStore.Notice;
import dev.locks.spi.RemoteComputeStore.Ticket;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A remote store behind the flights, for a distributed backend: one node's side of fetch-or-compute across nodes.
 * Callers of a key on this node meet in the engine's node-local single flight ({@link ComputeFlights}); the caller
 * with its turn is the node's one caller in the protocol across nodes, for all the others, which wait in the flight:
 * <ol>
 *   <li>it claims the miss in the store ({@link dev.locks.spi.RemoteComputeStore#claim}): the value may be there after all
 *       (every caller of the node gets it), or it computes, or another node's computer does and it waits;</li>
 *   <li>waiting, it is not timed here (that computer's compute lock expires in the store); it parks until the
 *       notice that ends the miss, or until the lock's expiry, when it claims again and so takes over the
 *       miss if nobody finished it (with the first computer's hint), or once a
 *       {@linkplain ComputeEngine#POLL_INTERVAL poll interval} in case a
 *       notice was lost;</li>
 *   <li>computing, it is timed here with its compute timeout, like its compute lock in the store: when it
 *       stalls, the flight's oldest waiter takes its place on this node and claims in its turn;</li>
 *   <li>a caller that stops waiting (its wait time, an interrupt) passes the turn to the oldest waiter.</li>
 * </ol>
 * When a miss ends, the node that ended it settles its own flight with the value or exception object itself;
 * every other node learns it from one notice on the one subscription of the node, fetches a value with one
 * read (on the notice thread, once per node), and settles its flight with it, or with a
 * {@link ComputeFailedException}. When the store cannot be reached, the caller in the protocol settles its flight
 * with the {@link LockUnavailableException}: nobody on the node is left waiting. Not an API.
 */
final class StoreComputeBacking implements ComputeBacking {

    private static final System.Logger LOG = System.getLogger(StoreComputeBacking.class.getName());

    /** How long after a compute lock's expiry a waiter claims, so that the store sees it expired. */
    private static final long EXPIRY_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final ComputeValues store;
    private final ComputeFlights flights;
    private final LocksClock clock;
    private final FlightClock parking;
    private final UnreadableValues unreadable;
    private final String node = ProcessHandle.current().pid() + "@" + hostName();
    private final String id = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicLong ids = new AtomicLong();
    private final long pollNanos;

    /**
     * Subscribes the node to the store's notices.
     *
     * @param poll how often a waiter looks at the store by itself ({@link ComputeEngine#POLL_INTERVAL})
     * @param unreadable where the values the store could not read are reported
     */
    StoreComputeBacking(ComputeValues store, ComputeFlights flights, LocksClock clock, Duration poll,
            UnreadableValues unreadable) {
        this.store = store;
        this.clock = clock;
        this.parking = new FlightClock(clock);
        this.unreadable = unreadable;
        this.pollNanos = FlightClock.nanos(poll);
        this.flights = flights;
        store.subscribe(new Listener());
    }

    /**
     * The node's caller in the protocol claims the miss across nodes, and waits if another node computes it.
     *
     * @return {@link ComputeOutcome.Compute} when the caller computes (its ticket works on any node);
     *         {@link ComputeOutcome.Hit} when the value was stored after all; {@link ComputeOutcome.Value} or
     *         {@link ComputeOutcome.Failed} when it waited for another computer
     * @throws ComputeTimeoutException when the caller's own wait time ran out (the miss goes on)
     * @throws CancellationException when the caller was interrupted while waiting (the miss goes on)
     * @throws LockUnavailableException when the store cannot be reached
     */
    @Override
    public ComputeOutcome turn(String key, ComputeOutcome.Compute turn, String hint, ComputeOptions options,
            long since) {
        return represent(key, turn.ticket(), hint, options, since, Duration.ZERO);
    }

    /**
     * A background refresh (section 11) claims the key across nodes as a {@linkplain Claimant#refresh() refresh},
     * and waits if another node computes it.
     */
    @Override
    public ComputeOutcome refreshTurn(String key, ComputeOutcome.Compute turn, ComputeOptions options,
            Duration refreshAfter, long since) {
        return represent(key, turn.ticket(), "", options, since, refreshAfter);
    }

    @Override
    public Object get(String key) {
        return store.get(key);
    }

    @Override
    public ValueStore.Entry entry(String key) {
        return store.entry(key);
    }

    @Override
    public boolean backOff(String key, Duration backOff) {
        return store.backOff(key, backOff);
    }

    /** A store maps keys onto its own: an invalid key must not reach it. */
    @Override
    public boolean exactKeys() {
        return false;
    }

    /** A ticket of this protocol, for a key that may be stored. */
    @Override
    public boolean accepts(ComputeTicket ticket) {
        return RemoteTickets.of(ticket) != null && !ticket.key().isBlank();
    }

    @Override
    public boolean promoted(ComputeTicket ticket) {
        return RemoteTickets.of(ticket).promoted();
    }

    @Override
    public long computingSince(ComputeTicket ticket, long orElse) {
        return computingSince(ticket.key(), RemoteTickets.of(ticket), orElse);
    }

    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        return complete(ticket.key(), RemoteTickets.of(ticket), value, ttl);
    }

    @Override
    public boolean fail(ComputeTicket ticket, Throwable error) {
        return fail(ticket.key(), RemoteTickets.of(ticket), error);
    }

    /**
     * Completes the ticket's miss, if this is its first completion; this node's flight of the key gets
     * {@code value} itself. A computer whose completion came too late passes its turn on this node.
     *
     * @throws LockUnavailableException when the store cannot be reached: this node's waiters get it too
     * @throws RuntimeException the store's, when {@code value} cannot be written: the miss fails with it
     */
    private boolean complete(String key, Ticket ticket, Object value, Duration ttl) {
        boolean accepted;
        try {
            Duration staleIfError = staleIfError(key, ticket);
            accepted = staleIfError == null ? store.complete(id, key, ticket, value, ttl)
                    : store.complete(id, key, ticket, value, ttl, staleIfError);
        } catch (LockUnavailableException e) {
            settleHere(key, ticket.miss(), new ComputeOutcome.Failed(e)); // nobody on this node waits in vain
            throw e;
        } catch (RuntimeException e) {
            fail(key, ticket, e); // nothing was sent: every waiter learns that this value could not be stored
            throw e;
        }
        if (accepted) {
            settleHere(key, ticket.miss(), new ComputeOutcome.Value(value));
        } else {
            passTurn(key, ticket);
        }
        return accepted;
    }

    /**
     * Fails the ticket's miss with {@code error}, if the ticket is its current computer's; this node's flight
     * of the key gets {@code error} itself, other nodes a {@link ComputeFailedException}. A computer whose
     * turn had passed passes it on this node too.
     *
     * @throws LockUnavailableException when the store cannot be reached; this node's waiters get
     *         {@code error} all the same
     */
    private boolean fail(String key, Ticket ticket, Throwable error) {
        boolean accepted;
        try {
            accepted = store.fail(id, key, ticket, error);
        } catch (RuntimeException e) {
            settleHere(key, ticket.miss(), new ComputeOutcome.Failed(error));
            throw e;
        }
        if (accepted) {
            settleHere(key, ticket.miss(), new ComputeOutcome.Failed(error));
        } else {
            passTurn(key, ticket);
        }
        return accepted;
    }

    /**
     * The stale window of the ticket's computer on this node, as its caller asked; {@code null} when it asked for
     * neither refresh-ahead nor stale-if-error, or is not on this node.
     */
    private Duration staleIfError(String key, Ticket ticket) {
        for (RemoteComputeFlight flight : flightsAbout(key, ticket.miss())) {
            ComputeTicket local = flight.localComputerOf(ticket);
            if (local != null) {
                return flights.staleIfError(local);
            }
        }
        return null;
    }

    /** When {@code ticket}'s turn began on this node (on the cache's clock), or {@code orElse}. */
    private long computingSince(String key, Ticket ticket, long orElse) {
        for (RemoteComputeFlight flight : flightsAbout(key, ticket.miss())) {
            if (flight.localComputerOf(ticket) != null) {
                return flight.computingSince(ticket, orElse);
            }
        }
        return orElse;
    }

    /** The computer (with its node: another node's while this node waits for it) and this node's waiters. */
    @Override
    public Computation describe(Computation computation) {
        RemoteComputeFlight flight = flights.attachment(computation.key());
        return flight != null ? flight.describe(computation, node)
                : new Computation(computation.key(), computation.computer() + " @ " + node, computation.waiters(),
                        computation.startedAt());
    }

    /** Whether this node's caller in the protocol of {@code key} is in flight: a caller here would join it. */
    @Override
    public boolean joinsComputationOf(String key) {
        return flights.attachment(key) != null;
    }

    /**
     * The value and the miss in flight in the store (this node's flight is out of the way already: later callers
     * here start anew), telling the other nodes to do as this one did.
     */
    @Override
    public void invalidate(String key) {
        store.invalidate(id, key);
    }

    /** Ends the store's subscription. */
    @Override
    public void close() {
        store.close();
    }

    /**
     * The node's caller in the protocol, for its flight's ticket {@code local}: claims, and waits if need be.
     *
     * @param since when the caller began to wait, on the cache's clock (its wait time runs from then)
     */
    private ComputeOutcome represent(String key, ComputeTicket local, String hint, ComputeOptions options, long since,
            Duration refreshAfter) {
        RemoteComputeFlight flight = flights.attachment(local);
        boolean waited = flight != null; // promoted on this node, where it waited first: it finds what was learnt
        if (flight == null) {
            flight = new RemoteComputeFlight(local);
            flights.attach(local, flight);
        }
        while (true) {
            ComputeOutcome ended = flight.outcome();
            if (ended != null) {
                return ended;
            }
            flights.retime(local, null); // talking to the store or waiting for another node: not timed here
            Claim claim = claim(key, local, flight, options, hint, refreshAfter);
            if (claim instanceof Claim.Compute turn) {
                flight.computing(turn.miss(), turn.ticket(), local, clock.nanoTime());
                flights.retime(local, options.computeTimeout());
                return new ComputeOutcome.Compute(RemoteTickets.toTicket(turn.ticket(), key), turn.miss().hint());
            }
            if (claim instanceof Claim.Wait wait) {
                flight.waiting(wait);
                waited = true;
                ended = awaitRemote(key, local, flight, wait.pttlMillis(), since, options);
                if (ended != null) {
                    return ended;
                }
            } else {
                ended = claim instanceof Claim.Hit hit ? new ComputeOutcome.Value(hit.value())
                        : ((Claim.Done) claim).outcome();
                settle(flight, ended);
                return !waited && claim instanceof Claim.Hit hit
                        ? new ComputeOutcome.Hit(hit.value()) : ended;
            }
        }
    }

    /**
     * One claim. When the store cannot be reached, every caller of the node's flight gets the exception; when
     * the claimant was interrupted during the call, it passes its turn like any interrupted waiter.
     */
    private Claim claim(String key, ComputeTicket local, RemoteComputeFlight flight, ComputeOptions options,
            String hint, Duration refreshAfter) {
        try {
            return store.claim(key, claimant(options, hint, refreshAfter), flight.miss());
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                throw interrupted(key, local, e);
            }
            settle(flight, new ComputeOutcome.Failed(e));
            throw e;
        }
    }

    /** The caller stops waiting, interrupted: its turn goes to the next waiter, the computation goes on. */
    private CancellationException interrupted(String key, ComputeTicket local, Throwable cause) {
        flights.handOver(local);
        CancellationException cancelled = new CancellationException("Interrupted while waiting for the computation of '"
                + key + "'; the computation goes on for the other callers");
        if (cause != null) {
            cancelled.initCause(cause);
        }
        return cancelled;
    }

    /**
     * Parks until the miss ends (its outcome), or it is time to claim again ({@code null}: the compute lock
     * expired, a poke, or a {@linkplain ComputeEngine#POLL_INTERVAL poll interval} passed).
     */
    private ComputeOutcome awaitRemote(String key, ComputeTicket local, RemoteComputeFlight flight, long pttlMillis,
            long since, ComputeOptions options) {
        long claimAt = System.nanoTime() + (pttlMillis < 0 ? pollNanos
                : Math.min(pollNanos, TimeUnit.MILLISECONDS.toNanos(pttlMillis) + EXPIRY_MARGIN_NANOS));
        Duration waitTime = options.waitTime().orElse(null);
        while (true) {
            long left = claimAt - System.nanoTime();
            if (waitTime != null) {
                long waitLeft = since + FlightClock.nanos(waitTime) - clock.nanoTime();
                if (waitLeft <= 0) {
                    flights.handOver(local);
                    throw new ComputeTimeoutException(key, waitTime);
                }
                left = Math.min(left, parking.slice(waitLeft));
            }
            if (left <= 0) {
                return null;
            }
            try {
                if (flight.await(left)) {
                    return flight.outcome();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw interrupted(key, local, null);
            }
        }
    }

    /** A notice from another node: settles this node's flight of the key if it awaits that miss. */
    private void noticed(Notice notice) {
        if (notice.node().equals(id)) {
            return; // this node settled its own flight as it ended the miss, with the object itself
        }
        if (notice.outcome() == Notice.Outcome.INVALIDATED) {
            flights.invalidate(notice.key()); // callers here that come later start a new miss
            return;
        }
        List<RemoteComputeFlight> about = flightsAbout(notice.key(), notice.miss());
        if (about.isEmpty()) {
            RemoteComputeFlight current = flights.attachment(notice.key());
            if (current != null) {
                current.poke(); // a miss this node has not placed yet (its claim's answer is on its way): look again
            }
            return;
        }
        ComputeOutcome outcome = switch (notice.outcome()) {
            case NULL -> new ComputeOutcome.Value(null);
            case FAILED -> new ComputeOutcome.Failed(
                    new ComputeFailedException(notice.key(), notice.className(), notice.message()));
            case UNSTORED -> fetched(notice.key(), () -> store.invalidatedValue(notice.key(), notice.miss()));
            default -> fetched(notice.key(), () -> store.get(notice.key()));
        };
        for (RemoteComputeFlight flight : about) {
            if (outcome == null) {
                flight.poke();
            } else {
                settle(flight, outcome);
            }
        }
    }

    /** The value a notice announced, or {@code null} if it is gone already or cannot be read now. */
    private ComputeOutcome fetched(String key, Supplier<Object> fetch) {
        try {
            Object value = fetch.get();
            return value == null ? null : new ComputeOutcome.Value(value);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "could not fetch the value of '" + key
                    + "' a notice announced; its waiter looks again", e);
            return null;
        }
    }

    /** Settles this node's flights of {@code key} that are about {@code missId}. */
    private void settleHere(String key, String missId, ComputeOutcome outcome) {
        for (RemoteComputeFlight flight : flightsAbout(key, missId)) {
            settle(flight, outcome);
        }
    }

    private void settle(RemoteComputeFlight flight, ComputeOutcome outcome) {
        flights.settle(flight.flight(), outcome);
        flight.deliver(outcome);
    }

    /** A computer whose completion or failure was refused gives its turn on this node to the oldest waiter. */
    private void passTurn(String key, Ticket ticket) {
        for (RemoteComputeFlight flight : flightsAbout(key, ticket.miss())) {
            ComputeTicket local = flight.localComputerOf(ticket);
            if (local != null) {
                flights.handOver(local);
            }
        }
    }

    /**
     * This node's flights of {@code key} in the miss {@code missId}: the current one and those invalidated while
     * they ran (which may wait for the same miss, when this node invalidated the key just before the store did).
     */
    private List<RemoteComputeFlight> flightsAbout(String key, String missId) {
        List<RemoteComputeFlight> about = new ArrayList<>(1);
        for (RemoteComputeFlight flight : flights.attachments(key)) {
            if (flight.isAbout(missId)) {
                about.add(flight);
            }
        }
        return about;
    }

    private Claimant claimant(ComputeOptions options, String hint, Duration refreshAfter) {
        return new Claimant(newId(), Thread.currentThread().getName() + " @ " + node,
                options.computeTimeout(), newId(), hint, options.ttl(), refreshAfter);
    }

    private String newId() {
        return id + "." + Long.toString(ids.incrementAndGet(), 36);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }

    /** What the store tells the node: notices, on the store's notice thread, and values it could not read. */
    private final class Listener implements ComputeValues.Listener {

        @Override
        public void noticed(Notice notice) {
            StoreComputeBacking.this.noticed(notice);
        }

        @Override
        public void unreadable(String key, Throwable cause) {
            unreadable.report(key, cause);
        }
    }
}
