package dev.locks.internal;

import static dev.locks.internal.ComputeCalls.cast;
import static dev.locks.internal.ComputeCalls.checkCall;
import static dev.locks.internal.ComputeCalls.requireTtl;
import static dev.locks.internal.ComputeCalls.resultOf;
import static dev.locks.internal.ComputeCalls.sneaky;
import static dev.locks.internal.ComputeCalls.valueOf;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.LocksObserver.ComputeResult;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * The call flow every {@link ComputeCache} backend shares, for the cache to delegate its
 * {@link ComputeCache#fetchOrCompute} and {@link ComputeCache#begin} to: look the key up, report a hit, or join the
 * miss and either compute (the caller's own supplier, whose result or exception the caller always gets back)
 * or receive what another computer produced; every call's outcome reported to the observer. A {@link Backend}
 * supplies where values live and how a miss is coordinated. Not an API.
 */
public final class ComputeCallFlow {

    private final ComputeOptions defaults;
    private final ComputeEvents events;
    private final Backend backend;
    /** {@link Backend#exactKeys()}, read once: a hit then checks the key only for {@code null}. */
    private final boolean exactKeys;
    /** The keys this thread computes, innermost first, for {@link #checkNotRecursive}. */
    private final ThreadLocal<Computing> computing = new ThreadLocal<>();

    public ComputeCallFlow(ComputeOptions defaults, ComputeEvents events, Backend backend) {
        this.defaults = defaults;
        this.events = events;
        this.backend = backend;
        this.exactKeys = backend.exactKeys();
    }

    /** Where a cache's values live and how its misses are coordinated. */
    public interface Backend {

        /** The stored value of {@code key}, or {@code null}. */
        Object lookUp(String key);

        /**
         * Starts or joins the miss of {@code key}: {@link ComputeOutcome.Compute} when the caller is to compute,
         * else what the miss came to ({@link ComputeOutcome.Hit} when the value turned up after all).
         */
        ComputeOutcome join(String key, String hint, ComputeOptions options);

        /** Settles the miss with the caller's own result; may throw when the store fails. */
        void completeOwn(ComputeTicket ticket, Object value, Duration ttl);

        /** Hands the caller's own failure to the miss's waiters; never throws (the caller rethrows its own). */
        void failOwn(ComputeTicket ticket, Throwable error);

        /** Whether the ticket's computer was promoted from waiter. */
        boolean promoted(ComputeTicket ticket);

        /** Throws when the cache can take no calls (closed); by default it always can. */
        default void checkOpen() {
        }

        /**
         * Whether {@link #lookUp} can find a value only under the very key it was stored with, compared as a
         * string, and only valid keys are ever stored (a map in this JVM): a key that is not valid can then
         * never hit, and the call flow validates it only on a miss, before anything else happens to it. False
         * by default: a store that maps keys onto something else (bytes, a prefix) must not see an invalid
         * key at all.
         */
        default boolean exactKeys() {
            return false;
        }
    }

    public ComputeEvents events() {
        return events;
    }

    /**
     * {@link ComputeCache#fetchOrCompute(String, Duration, Supplier)}, with the defaults' compute timeout and wait
     * time.
     */
    public <V> V fetchOrCompute(String key, Duration ttl, Supplier<V> compute) {
        return fetch(key, ttl, null, compute);
    }

    /** {@link ComputeCache#fetchOrCompute(String, ComputeOptions, Supplier)}. */
    public <V> V fetchOrCompute(String key, ComputeOptions options, Supplier<V> compute) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        return fetch(key, options.ttl(), options, compute);
    }

    /**
     * {@link ComputeCache#begin}, with the defaults' compute timeout and without a wait time: until the result
     * comes or the caller is promoted.
     */
    public ComputeOutcome begin(String key, Duration ttl, String hint) {
        Keys.requireValid(key, 0);
        requireTtl(ttl);
        return begin(key, defaults.withTtl(ttl).withoutWaitTime(), hint);
    }

    /**
     * {@link ComputeCache#begin(String, ComputeOptions, String)}: as {@link #begin(String, Duration, String)}, with
     * the compute timeout and wait time of {@code options}.
     */
    public ComputeOutcome begin(String key, ComputeOptions options, String hint) {
        Keys.requireValid(key, 0);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        backend.checkOpen();
        long started = events.start();
        Object stored = read(key, started);
        if (stored != null) {
            events.report(ComputeResult.HIT, started);
            return new ComputeOutcome.Hit(stored);
        }
        ComputeOutcome outcome = joinReporting(key, hint == null ? "" : hint, options, started);
        if (!(outcome instanceof ComputeOutcome.Compute)) {
            events.report(resultOf(outcome), started);
        }
        return outcome;
    }

    public ComputeOptions defaultOptions() {
        return defaults;
    }

    /**
     * The hit path, then the miss; {@code options} are built from the defaults only on a miss when null. With
     * {@link #exactKeys} the key is checked in full only on a miss (a hit proves it valid), still before any
     * event of the call is reported.
     */
    private <V> V fetch(String key, Duration ttl, ComputeOptions options, Supplier<V> compute) {
        checkCall(key, ttl, compute, !exactKeys);
        backend.checkOpen();
        long started = events.start();
        Object stored = read(key, started);
        if (stored != null) {
            events.report(ComputeResult.HIT, started);
            return cast(stored);
        }
        if (exactKeys) {
            Keys.requireValid(key, 0);
        }
        checkNotRecursive(key, started);
        ComputeOptions chosen = options == null ? defaults.withTtl(ttl) : options;
        ComputeOutcome outcome = joinReporting(key, "", chosen, started);
        if (outcome instanceof ComputeOutcome.Compute turn) {
            return compute(turn.ticket(), chosen.ttl(), compute, started);
        }
        events.report(resultOf(outcome), started);
        return valueOf(outcome);
    }

    /** Runs the caller's own supplier as the miss's computer; the caller gets its own result or exception. */
    private <V> V compute(ComputeTicket ticket, Duration ttl, Supplier<V> compute, long started) {
        ComputeResult computed = backend.promoted(ticket) ? ComputeResult.PROMOTED : ComputeResult.COMPUTED;
        V value;
        Computing outer = computing.get();
        computing.set(new Computing(ticket.key(), outer));
        try {
            value = compute.get();
        } catch (Throwable e) {
            backend.failOwn(ticket, e);
            events.report(ComputeResult.FAILED, started);
            throw sneaky(e);
        } finally {
            if (outer == null) {
                computing.remove();
            } else {
                computing.set(outer);
            }
        }
        try {
            backend.completeOwn(ticket, value, ttl);
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.FAILED, started);
            throw e;
        }
        events.report(computed, started);
        return value;
    }

    /**
     * A computation that misses its own key, directly or through other keys, would wait for itself: it fails
     * at once instead, naming the keys (as Caffeine's "recursive update" does).
     */
    private void checkNotRecursive(String key, long started) {
        Computing innermost = computing.get();
        if (innermost == null || !innermost.includes(key)) {
            return;
        }
        events.report(ComputeResult.FAILED, started);
        throw new IllegalStateException("recursive computation of '" + key + "': " + innermost.chainTo(key)
                + "; a computation must not fetch its own key, directly or through other keys");
    }

    private ComputeOutcome joinReporting(String key, String hint, ComputeOptions options, long started) {
        try {
            return backend.join(key, hint, options);
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.FAILED, started);
            throw e;
        }
    }

    private Object read(String key, long started) {
        try {
            return backend.lookUp(key);
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.FAILED, started);
            throw e;
        }
    }

    /** A key this thread computes, and the computation it is nested in. */
    private record Computing(String key, Computing outer) {

        boolean includes(String other) {
            for (Computing each = this; each != null; each = each.outer) {
                if (each.key.equals(other)) {
                    return true;
                }
            }
            return false;
        }

        /** "computing 'a' fetches 'b', which fetches 'a'", from the outermost computation of {@code key}. */
        String chainTo(String key) {
            ArrayDeque<String> chain = new ArrayDeque<>();
            for (Computing each = this; each != null; each = each.outer) {
                chain.addFirst(each.key);
                if (each.key.equals(key)) {
                    break;
                }
            }
            StringBuilder text = new StringBuilder("computing '").append(chain.removeFirst()).append("' fetches ");
            for (String inner : chain) {
                text.append('\'').append(inner).append("', which fetches ");
            }
            return text.append('\'').append(key).append('\'').toString();
        }
    }
}
