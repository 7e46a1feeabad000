package dev.locks.internal;

import dev.locks.Computation;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import java.time.Duration;

/**
 * What stands behind the engine's node-local flights, the one thing in which compute backends differ: values in
 * this JVM ({@link MemoryComputeBacking}, the flights are the whole coordination) or a remote store
 * ({@link StoreComputeBacking}, the node's caller with the turn takes part in the protocol across nodes for all the
 * node's callers of the key). The engine's algorithm (hit, miss, the caller's own computation and its result or
 * exception, stale values, background refreshes, the recursion check, events) is the same over both; each method
 * here is a point where it asks the backing.
 */
interface ComputeBacking extends AutoCloseable {

    /** The stored value of {@code key}, or {@code null}: the hit path. */
    Object get(String key);

    /** The value with its age, or the stale value, and whether the key backs off ({@link ValueStore#entry}). */
    ValueStore.Entry entry(String key);

    /** Starts the key's error back-off unless one runs; whether this call started it. */
    boolean backOff(String key, Duration backOff);

    /**
     * Whether {@link #get} finds a value only under the very key it was stored with, compared as a string, and only
     * valid keys are ever stored (a map in this JVM): a key that is not valid can then never hit, and the engine
     * validates it only on a miss. A store that maps keys onto something else must not see an invalid key at all.
     */
    boolean exactKeys();

    /**
     * The caller got the turn of its node-local flight of {@code key} ({@code turn}: the first caller, or a waiter
     * promoted over a stalled computer): what the miss comes to. {@link ComputeOutcome.Compute} when it is to
     * compute; {@link ComputeOutcome.Hit} when its look at the store found the value after all;
     * {@link ComputeOutcome.Value} or {@link ComputeOutcome.Failed} when it waited for another node's computer.
     * Whatever does not make the caller compute settles the flight, for everyone waiting in it.
     *
     * @param hint the caller's own hint
     * @param since when the caller began to wait, on the cache's clock (its wait time runs from then)
     */
    ComputeOutcome turn(String key, ComputeOutcome.Compute turn, String hint, ComputeOptions options, long since);

    /**
     * As {@link #turn}, for a background refresh that got the turn of a flight of its own: it computes only if
     * the value is missing or at least {@code refreshAfter} old. {@code null}: nothing to do.
     */
    ComputeOutcome refreshTurn(String key, ComputeOutcome.Compute turn, ComputeOptions options,
            Duration refreshAfter, long since);

    /** Whether {@code ticket} may be one of this backing's (else completing or failing it changes nothing). */
    boolean accepts(ComputeTicket ticket);

    /** Whether the ticket's computer was promoted from waiter (by its id). */
    boolean promoted(ComputeTicket ticket);

    /** When the ticket's turn began on this node (on the cache's clock), or {@code orElse}. */
    long computingSince(ComputeTicket ticket, long orElse);

    /**
     * Settles the ticket's miss with {@code value}, stored unless {@code null}, if this is its first completion.
     *
     * @param ttl {@code null} for the TTL of the miss's first computer
     * @throws RuntimeException when the value cannot be stored: the miss fails with it
     */
    boolean complete(ComputeTicket ticket, Object value, Duration ttl);

    /**
     * Settles the ticket's miss with {@code error}, if the ticket is its current computer's.
     *
     * @throws RuntimeException when the store cannot be told; this node's waiters get {@code error} all the same
     */
    boolean fail(ComputeTicket ticket, Throwable error);

    /** A flight of this node as operations see it ({@code local}: as the node-local flights see it). */
    Computation describe(Computation local);

    /** Whether a caller of {@code key} on this node would now join a computation in flight. */
    boolean joinsComputationOf(String key);

    /**
     * Removes the value of {@code key} (and, in a store, sets its miss in flight aside), after the engine took the
     * node's flight of the key out of the way.
     */
    void invalidate(String key);

    /** The engine is closing, after it stopped starting refreshes. */
    @Override
    void close();
}
