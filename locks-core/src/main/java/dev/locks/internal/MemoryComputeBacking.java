package dev.locks.internal;

import dev.locks.Computation;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import java.time.Duration;

/**
 * Values in this JVM ({@link MemoryValues}) behind the flights, for the in-memory backend: the flights are the whole
 * coordination. A caller that starts a miss looks the key up once more before it computes; a completion stores its
 * value under the flight's lock, so that no completion of a miss invalidated meanwhile stores anything.
 */
final class MemoryComputeBacking implements ComputeBacking {

    private final ComputeFlights flights;
    private final MemoryValues values;

    MemoryComputeBacking(ComputeFlights flights, MemoryValues values) {
        this.flights = flights;
        this.values = values;
    }

    @Override
    public Object get(String key) {
        return values.get(key);
    }

    @Override
    public ValueStore.Entry entry(String key) {
        return values.entry(key);
    }

    @Override
    public boolean backOff(String key, Duration backOff) {
        return values.backOff(key, backOff);
    }

    /** Caffeine compares keys as strings, and only a valid key is ever stored: a hit need not check it. */
    @Override
    public boolean exactKeys() {
        return true;
    }

    /** The miss's first caller looks again (the value may have come since its look); a promoted one computes. */
    @Override
    public ComputeOutcome turn(String key, ComputeOutcome.Compute turn, String hint, ComputeOptions options,
            long since) {
        if (FlightComputer.promoted(turn.ticket())) {
            return turn;
        }
        Object stored;
        try {
            stored = values.get(key);
        } catch (Throwable e) {
            flights.settle(turn.ticket(), new ComputeOutcome.Failed(e));
            throw e;
        }
        return stored == null ? turn : found(turn, stored);
    }

    /** Computes only if the stored value, looked up once more, is missing or was written at least refreshAfter ago. */
    @Override
    public ComputeOutcome refreshTurn(String key, ComputeOutcome.Compute turn, ComputeOptions options,
            Duration refreshAfter, long since) {
        Object young;
        try {
            ValueStore.Entry entry = values.entry(key);
            young = entry == null || entry.stale() || entry.ageMillis() >= refreshAfter.toMillis() ? null : entry.value();
        } catch (Throwable e) {
            flights.settle(turn.ticket(), new ComputeOutcome.Failed(e));
            throw e;
        }
        return young == null ? turn : found(turn, young);
    }

    private ComputeOutcome found(ComputeOutcome.Compute turn, Object value) {
        flights.settle(turn.ticket(), new ComputeOutcome.Value(value));
        return new ComputeOutcome.Hit(value);
    }

    @Override
    public boolean accepts(ComputeTicket ticket) {
        return true; // the flights know their own tickets
    }

    @Override
    public boolean promoted(ComputeTicket ticket) {
        return FlightComputer.promoted(ticket);
    }

    @Override
    public long computingSince(ComputeTicket ticket, long orElse) {
        return flights.computingSince(ticket, orElse);
    }

    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        return flights.complete(ticket, value, ttl, values) != null;
    }

    @Override
    public boolean fail(ComputeTicket ticket, Throwable error) {
        return flights.fail(ticket, error) != null;
    }

    @Override
    public Computation describe(Computation local) {
        return local;
    }

    @Override
    public boolean joinsComputationOf(String key) {
        return flights.inFlight(key);
    }

    @Override
    public void invalidate(String key) {
        values.remove(key);
    }

    @Override
    public void close() {
    }

    /** How many values are stored, after pending evictions. */
    long size() {
        return values.size();
    }

    /** The weight of the stored values, after pending evictions; 0 when bounded by count. */
    long weight() {
        return values.weight();
    }
}
