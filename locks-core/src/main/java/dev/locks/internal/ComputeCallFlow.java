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
import dev.locks.ComputeTimeoutException;
import dev.locks.LocksClock;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.internal.ValueStore.Entry;
import java.lang.System.Logger.Level;
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

    private static final System.Logger LOG = System.getLogger(ComputeCallFlow.class.getName());

    /** The default of {@code locks.compute.error-backoff}. */
    public static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);
    /** The default of {@code locks.compute.refresh.max-concurrent}. */
    public static final int REFRESH_MAX_CONCURRENT = 4;

    private final ComputeOptions defaults;
    /** Whether {@link #defaults} ask for refresh-ahead or stale-if-error, so that the TTL-only form goes fresh. */
    private final boolean freshDefaults;
    private final Duration errorBackoff;
    private final Refreshes refreshes;
    private final KeyWarnings warnings;
    private final ComputeEvents events;
    private final Backend backend;
    /** {@link Backend#exactKeys()}, read once: a hit then checks the key only for {@code null}. */
    private final boolean exactKeys;
    /** The keys this thread computes, innermost first, for {@link #checkNotRecursive}. */
    private final ThreadLocal<Computing> computing = new ThreadLocal<>();

    public ComputeCallFlow(ComputeOptions defaults, ComputeEvents events, Backend backend) {
        this(defaults, events, backend, LocksClock.system(), ERROR_BACKOFF, REFRESH_MAX_CONCURRENT);
    }

    /**
     * @param errorBackoff while a stale value is served after a failure, or after a refresh failed, at most one new
     *        attempt per key per this ({@code locks.compute.error-backoff})
     * @param refreshMaxConcurrent background refreshes at once on this node
     *        ({@code locks.compute.refresh.max-concurrent})
     */
    public ComputeCallFlow(ComputeOptions defaults, ComputeEvents events, Backend backend, LocksClock clock,
            Duration errorBackoff, int refreshMaxConcurrent) {
        this.errorBackoff = ComputeCalls.requireErrorBackoff(errorBackoff);
        this.refreshes = new Refreshes(refreshMaxConcurrent);
        this.warnings = new KeyWarnings(clock);
        this.freshDefaults = fresh(defaults);
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

        /**
         * The value with its age, or the stale value, and whether the key backs off
         * ({@link dev.locks.spi.RemoteComputeStore#entry}); by default {@link #lookUp} as a value of age 0.
         */
        default Entry lookUpEntry(String key) {
            Object value = lookUp(key);
            return value == null ? null : new Entry(value, 0L, false, false);
        }

        /**
         * Starts a background refresh of {@code key} as its own miss: {@link ComputeOutcome.Compute} when it is to
         * compute, else what it found; {@code null} when there is nothing to do. By default nothing.
         */
        default ComputeOutcome joinRefresh(String key, ComputeOptions options, Duration refreshAfter) {
            return null;
        }

        /** Starts the key's error back-off unless one runs; by default none is kept. */
        default boolean backOff(String key, Duration backOff) {
            return false;
        }

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
        if (freshDefaults) {
            requireTtl(ttl);
            return fetchFresh(key, defaults.withTtl(ttl), compute);
        }
        return fetch(key, ttl, null, compute);
    }

    /** {@link ComputeCache#fetchOrCompute(String, ComputeOptions, Supplier)}. */
    public <V> V fetchOrCompute(String key, ComputeOptions options, Supplier<V> compute) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        return fresh(options) ? fetchFresh(key, options, compute) : fetch(key, options.ttl(), options, compute);
    }

    /** Starts no more background refreshes. */
    public void close() {
        refreshes.close();
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

    /**
     * Section 11's call: a fresh value is a hit (one that is due starts a background refresh); a stale one is
     * served at once while the key backs off, else when the computation fails.
     */
    private <V> V fetchFresh(String key, ComputeOptions options, Supplier<V> compute) {
        checkCall(key, options.ttl(), compute, true);
        backend.checkOpen();
        long started = events.start();
        Entry entry;
        try {
            entry = backend.lookUpEntry(key);
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.FAILED, started);
            throw e;
        }
        if (entry != null && !entry.stale()) {
            events.report(ComputeResult.HIT, started);
            Duration refreshAfter = options.refreshAfter().orElse(null);
            if (refreshAfter != null && !entry.backingOff() && entry.ageMillis() >= refreshAfter.toMillis()) {
                startRefresh(key, options, refreshAfter, compute);
            }
            return cast(entry.value());
        }
        Object stale = entry == null || options.staleIfError().isEmpty() ? null : entry.value();
        if (stale != null && entry.backingOff()) {
            return served(key, stale, started, null);
        }
        checkNotRecursive(key, started);
        ComputeOutcome outcome;
        try {
            outcome = backend.join(key, "", options);
        } catch (ComputeTimeoutException e) {
            if (stale != null) {
                return served(key, stale, started, e); // its own wait time ran out: the stale value rather than none
            }
            events.report(ComputeResult.FAILED, started);
            throw e;
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.FAILED, started);
            throw e;
        }
        if (outcome instanceof ComputeOutcome.Compute turn) {
            return compute(turn.ticket(), options.ttl(), compute, started, stale);
        }
        if (stale != null && outcome instanceof ComputeOutcome.Failed failed) {
            return served(key, stale, started, failed.error());
        }
        events.report(resultOf(outcome), started);
        return valueOf(outcome);
    }

    /** A stale value instead of a failure: counted, and logged once per key and minute. */
    private <V> V served(String key, Object stale, long started, Throwable error) {
        events.report(ComputeResult.STALE, started);
        if (warnings.shouldWarn(key)) {
            LOG.log(Level.WARNING, "computing '" + key + "' failed" + (error == null ? " lately" : "")
                    + "; its stale value is served, and at most one new attempt is made per " + errorBackoff
                    + ". This is logged once a minute per key.", error);
        }
        return cast(stale);
    }

    /** Starts the background refresh of {@code key}, or counts it skipped when the node's refresh pool is full. */
    private <V> void startRefresh(String key, ComputeOptions options, Duration refreshAfter, Supplier<V> compute) {
        Refreshes.Started started = refreshes.start(key, () -> refresh(key, options, refreshAfter, compute));
        if (started == Refreshes.Started.SKIPPED) {
            events.count(ComputeResult.REFRESH_SKIPPED);
        }
    }

    /**
     * One background refresh: a miss of its own, single flight across nodes; its result stored with a fresh TTL, its
     * failure leaving the old value and starting the key's error back-off.
     */
    private <V> void refresh(String key, ComputeOptions options, Duration refreshAfter, Supplier<V> compute) {
        long started = events.start();
        ComputeOutcome outcome;
        try {
            outcome = backend.joinRefresh(key, options, refreshAfter);
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.REFRESH_FAILED, started);
            LOG.log(Level.DEBUG, () -> "could not start the refresh of '" + key + "'", e);
            return;
        }
        if (!(outcome instanceof ComputeOutcome.Compute turn)) {
            return; // young after all, or another computation settled it
        }
        V value;
        try {
            value = computing(key, compute);
        } catch (Throwable e) {
            backOff(key);
            backend.failOwn(turn.ticket(), e);
            events.report(ComputeResult.REFRESH_FAILED, started);
            if (warnings.shouldWarn(key)) {
                LOG.log(Level.WARNING, "refreshing '" + key + "' failed; the old value stays until its TTL, and the"
                        + " next refresh is tried after " + errorBackoff + ". This is logged once a minute per key.", e);
            }
            return;
        }
        try {
            backend.completeOwn(turn.ticket(), value, options.ttl());
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.REFRESH_FAILED, started);
            LOG.log(Level.WARNING, () -> "could not store the refreshed value of '" + key + "'", e);
            return;
        }
        events.report(ComputeResult.REFRESHED, started);
    }

    private void backOff(String key) {
        try {
            backend.backOff(key, errorBackoff);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "could not start the error back-off of '" + key + "'", e);
        }
    }

    /** Runs {@code compute} as this thread's computation of {@code key} (for {@link #checkNotRecursive}). */
    private <V> V computing(String key, Supplier<V> compute) {
        Computing outer = computing.get();
        computing.set(new Computing(key, outer));
        try {
            return compute.get();
        } finally {
            if (outer == null) {
                computing.remove();
            } else {
                computing.set(outer);
            }
        }
    }

    private static boolean fresh(ComputeOptions options) {
        return options.refreshAfter().isPresent() || options.staleIfError().isPresent();
    }

    private <V> V compute(ComputeTicket ticket, Duration ttl, Supplier<V> compute, long started) {
        return compute(ticket, ttl, compute, started, null);
    }

    /**
     * Runs the caller's own supplier as the miss's computer; the caller gets its own result or exception, or
     * {@code stale} (when not {@code null}) instead of the exception, the key backing off first.
     */
    private <V> V compute(ComputeTicket ticket, Duration ttl, Supplier<V> compute, long started, Object stale) {
        ComputeResult computed = backend.promoted(ticket) ? ComputeResult.PROMOTED : ComputeResult.COMPUTED;
        V value;
        try {
            value = computing(ticket.key(), compute);
        } catch (Throwable e) {
            if (stale != null) {
                backOff(ticket.key()); // before the failure is known: callers that come later find it backing off
                backend.failOwn(ticket, e);
                return served(ticket.key(), stale, started, e);
            }
            backend.failOwn(ticket, e);
            events.report(ComputeResult.FAILED, started);
            throw sneaky(e);
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
