package dev.locks.internal;

import static dev.locks.internal.ComputeCalls.cast;
import static dev.locks.internal.ComputeCalls.checkCall;
import static dev.locks.internal.ComputeCalls.checkComplete;
import static dev.locks.internal.ComputeCalls.checkFail;
import static dev.locks.internal.ComputeCalls.requireTtl;
import static dev.locks.internal.ComputeCalls.resultOf;
import static dev.locks.internal.ComputeCalls.sneaky;
import static dev.locks.internal.ComputeCalls.valueOf;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.ValueSerializer;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The fetch-or-compute algorithm, once for every {@link ComputeCache} backend: look the key up, report a hit, or
 * join the node-local single flight of the miss ({@link ComputeFlights}) and either compute (the caller's own
 * supplier, whose result or exception the caller always gets back) or receive what another computer produced;
 * {@link ComputeCache#begin}, {@link ComputeCache#complete} and {@link ComputeCache#fail} for callers that compute
 * themselves; stale values and background refreshes (section 11), the recursion check, and every call's outcome
 * reported to the observer. Not an API: backends reach it through {@link dev.locks.support.AbstractComputeCache}.
 *
 * <p>What stands behind the flights is a {@link ComputeBacking}: values in this JVM ({@link MemoryComputeBacking}),
 * or a {@link RemoteComputeStore} for a distributed backend ({@link StoreComputeBacking}, the protocol across nodes).
 */
public final class ComputeEngine implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ComputeEngine.class.getName());

    /** The default of {@code locks.compute.error-backoff}. */
    public static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);
    /** The default of {@code locks.compute.refresh.max-concurrent}. */
    public static final int REFRESH_MAX_CONCURRENT = 4;
    /** How often a node waiting for another looks at the store by itself, should a notice be lost. */
    public static final Duration POLL_INTERVAL = Duration.ofSeconds(1);
    /** The default bound of the value store in memory. */
    public static final long MAX_ENTRIES = 10_000;

    /**
     * How an engine is set up.
     *
     * @param backend the backend's short name ({@link ComputeCache#backend()})
     * @param defaults the options of calls that give none
     * @param clock the time of compute timeouts, wait times, the timestamps operations see and the observer's
     *        durations (and, in memory, of TTLs)
     * @param observer told how every call ended
     * @param errorBackoff while a stale value is served after a failure, or after a refresh failed, at most one new
     *        attempt per key per this ({@code locks.compute.error-backoff})
     * @param refreshMaxConcurrent background refreshes at once on this node
     *        ({@code locks.compute.refresh.max-concurrent})
     * @param pollInterval in front of a store, how often a waiter looks at it by itself
     * @param bounds in memory, the bound of the value store
     */
    public record Settings(String backend, ComputeOptions defaults, LocksClock clock, LocksObserver observer,
            Duration errorBackoff, int refreshMaxConcurrent, Duration pollInterval, Bounds bounds) {

        public Settings {
            ComputeCalls.requireSetting(backend, "backend");
            ComputeCalls.requireSetting(defaults, "defaultOptions");
            ComputeCalls.requireSetting(clock, "clock");
            ComputeCalls.requireSetting(observer, "observer");
            ComputeCalls.requireErrorBackoff(errorBackoff);
            ComputeCalls.requireRefreshMaxConcurrent(refreshMaxConcurrent);
            ComputeCalls.requireSetting(pollInterval, "pollInterval");
            ComputeCalls.requireSetting(bounds, "bounds");
        }
    }

    /**
     * The bound of the value store in memory: {@code maxEntries} values, or, with a {@code weigher}, a total weight
     * of {@code maxWeight}.
     */
    public record Bounds(long maxEntries, long maxWeight, ToLongFunction<Object> weigher) {

        /** {@link #MAX_ENTRIES} values. */
        public static final Bounds DEFAULT = new Bounds(MAX_ENTRIES, 0, null);

        public Bounds {
            if (weigher == null && maxEntries <= 0) {
                throw new IllegalArgumentException("maxEntries must be > 0, was " + maxEntries);
            }
            if (weigher != null && maxWeight <= 0) {
                throw new IllegalArgumentException("maxWeight must be > 0, was " + maxWeight);
            }
        }
    }

    private final Settings settings;
    private final ComputeOptions defaults;
    /** Whether {@link #defaults} ask for refresh-ahead or stale-if-error, so that the TTL-only form goes fresh. */
    private final boolean freshDefaults;
    private final Duration errorBackoff;
    private final LocksClock clock;
    private final Refreshes refreshes;
    private final KeyWarnings warnings;
    private final ComputeEvents events;
    private final ComputeFlights flights;
    private final ComputeBacking backing;
    /** {@link ComputeBacking#exactKeys()}, read once: a hit then checks the key only for {@code null}. */
    private final boolean exactKeys;
    /** The keys this thread computes, innermost first, for {@link #checkNotRecursive}. */
    private final ThreadLocal<Computing> computing = new ThreadLocal<>();
    /** The cache's name in the message of a call after {@link #close()}. */
    private final String name;
    /** The calls that wait without a thread. */
    private final AsyncComputeCalls async;
    private volatile boolean closed;

    /**
     * An engine in front of {@code store}, whose values it writes and reads with {@code serializer}, which it
     * subscribes now (the store's server need not be up yet) and closes with {@link #close()}; {@code null} for
     * values in this JVM (the in-memory backend).
     *
     * @param name the cache's name, for the message of a call after {@link #close()}
     */
    public ComputeEngine(Settings settings, RemoteComputeStore store, ValueSerializer serializer, String name) {
        this.settings = settings;
        this.name = name;
        this.clock = settings.clock();
        this.errorBackoff = settings.errorBackoff();
        this.refreshes = new Refreshes(settings.refreshMaxConcurrent());
        this.warnings = new KeyWarnings(clock);
        this.defaults = settings.defaults();
        this.freshDefaults = fresh(defaults);
        this.events = new ComputeEvents(settings.observer(), clock);
        this.flights = new ComputeFlights(clock);
        Bounds bounds = settings.bounds();
        this.backing = store == null
                ? new MemoryComputeBacking(flights, new MemoryValues(bounds.maxEntries(), bounds.maxWeight(),
                        bounds.weigher(), clock))
                : new StoreComputeBacking(new ComputeValues(store, serializer), flights, clock, settings.pollInterval(),
                        new UnreadableValues(events, clock));
        this.exactKeys = backing.exactKeys();
        this.async = new AsyncComputeCalls(this, backing, flights, events, clock, store == null, settings.backend());
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

    /**
     * Starts no more background refreshes, fails pending asynchronous calls, and closes the backing (a store's
     * subscription) and the threads of asynchronous calls; later calls throw.
     */
    @Override
    public void close() {
        closed = true;
        refreshes.close();
        async.close();
        backing.close();
    }

    /** See {@link ComputeCache#complete}. */
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        checkComplete(ticket, ttl);
        if (!backing.accepts(ticket)) {
            return false;
        }
        checkOpen();
        long started = backing.computingSince(ticket, events.start());
        boolean completed = backing.complete(ticket, value, ttl);
        if (completed) {
            events.report(backing.promoted(ticket) ? ComputeResult.PROMOTED : ComputeResult.COMPUTED, started);
        }
        return completed;
    }

    /** See {@link ComputeCache#fail}. */
    public boolean fail(ComputeTicket ticket, Throwable error) {
        checkFail(ticket, error);
        if (!backing.accepts(ticket)) {
            return false;
        }
        checkOpen();
        long started = backing.computingSince(ticket, events.start());
        boolean failed = backing.fail(ticket, error);
        if (failed) {
            events.report(ComputeResult.FAILED, started);
        }
        return failed;
    }

    /** See {@link ComputeCache#computations()}: this node's, ending on the way those overdue with nobody waiting. */
    public List<Computation> computations() {
        List<Computation> local = flights.snapshot();
        List<Computation> described = new ArrayList<>(local.size());
        for (Computation computation : local) {
            described.add(backing.describe(computation));
        }
        return described;
    }

    /**
     * See {@link ComputeCache#invalidate}: this node's flight of the key out of the way first (later callers here
     * start anew, and no completion of the old one stores anything), then the value.
     */
    public void invalidate(String key) {
        Keys.requireValid(key, 0);
        checkOpen();
        flights.invalidate(key);
        backing.invalidate(key);
    }

    /** See {@link ComputeCache#inFlightCount()}: this node's, counting abandoned misses not yet looked at. */
    public int inFlightCount() {
        return flights.size();
    }

    /** Whether a caller of {@code key} on this node would now join a computation in flight. */
    public boolean joinsComputationOf(String key) {
        return backing.joinsComputationOf(key);
    }

    public String backend() {
        return settings.backend();
    }

    /** How many values are kept in this JVM, after pending evictions: in memory, the value store's; else 0. */
    public long storedCount() {
        return backing instanceof MemoryComputeBacking memory ? memory.size() : 0;
    }

    /** The weight of the values kept in this JVM ({@link Bounds#weigher()}), after pending evictions; else 0. */
    public long storedWeight() {
        return backing instanceof MemoryComputeBacking memory ? memory.weight() : 0;
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
        checkBegin(key, options);
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

    /**
     * {@link #begin(String, ComputeOptions, String)} without a thread: the future completes with what {@code begin}
     * returns, or exceptionally with what it throws ({@link ComputeTimeoutException} when the caller's own wait time
     * ran out, {@code dev.locks.LockUnavailableException} when the store cannot be reached). Bad arguments or a closed
     * engine complete it exceptionally before anything happens; this method never throws.
     *
     * <ul>
     *   <li>A caller waiting for another caller's computation on this node holds no thread: it is a place in the
     *       node-local flight and at most one timer task ({@link FlightWait}).</li>
     *   <li>In memory the lookup runs on the calling thread, and a hit completes the future before this returns.
     *       In front of a store, the lookup (a round trip) and the node's one caller in the protocol across nodes
     *       (which claims, and waits if another node computes) run on the engine's {@link StoreCallThreads}: the
     *       latter is one thread per node and key at a time, whatever the number of waiters.</li>
     *   <li>Dependent stages run on the thread that ended the call: the engine's pool ({@link AsyncWaits}) for a
     *       waiter, a {@link StoreCallThreads} thread for a lookup or a turn, or the calling thread when the future is
     *       complete before this returns; never on a store client's notice thread.</li>
     *   <li>Cancelling the future while the caller waits makes it leave the wait (the computation goes on for the
     *       others, nothing is left behind); a turn it was given at that moment goes to the next waiter on this node
     *       (with none, the miss ends; in a store, the turn's compute lock ends with its compute timeout).</li>
     *   <li>Closing the engine completes pending futures with an {@link IllegalStateException}.</li>
     * </ul>
     *
     * <p>The observer hears of the call in the caller's {@link LocksObserver#callerContext()}.
     */
    public CompletableFuture<ComputeOutcome> beginAsync(String key, ComputeOptions options, String hint) {
        try {
            checkBegin(key, options);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return async.begin(key, options, hint == null ? "" : hint);
    }

    /**
     * {@link #fetchOrCompute(String, ComputeOptions, Supplier)} without a thread, for a computation that is itself
     * asynchronous: the future completes with the stored value, another computer's value, or this caller's own
     * computation's result (stored first), or exceptionally with what the blocking call would throw; with
     * refresh-ahead or stale-if-error (section 11) a due value starts a background refresh (which waits for the
     * computation on the engine's refresh pool), and a stale value is served instead of a failure, as the blocking
     * call does. The computation is started on the thread that got the turn, and its result is stored on a thread
     * that may block (never on the thread that completed it). Threads, cancellation and closing as
     * {@link #beginAsync}; a cancelled caller's computation, once started, still ends the miss for the others.
     */
    public <V> CompletableFuture<V> fetchOrComputeAsync(String key, ComputeOptions options,
            Supplier<? extends CompletionStage<V>> compute) {
        try {
            if (options == null) {
                throw new IllegalArgumentException("options must not be null");
            }
            checkCall(key, options.ttl(), compute, true);
            checkOpen();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return async.fetchOrCompute(key, options, compute);
    }

    public ComputeOptions defaultOptions() {
        return defaults;
    }

    /** What {@code begin} checks before anything happens. */
    private void checkBegin(String key, ComputeOptions options) {
        Keys.requireValid(key, 0);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        checkOpen();
    }

    /**
     * The hit path, then the miss; {@code options} are built from the defaults only on a miss when null. With
     * {@link #exactKeys} the key is checked in full only on a miss (a hit proves it valid), still before any
     * event of the call is reported.
     */
    private <V> V fetch(String key, Duration ttl, ComputeOptions options, Supplier<V> compute) {
        checkCall(key, ttl, compute, !exactKeys);
        checkOpen();
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
        checkOpen();
        long started = events.start();
        ValueStore.Entry entry;
        try {
            entry = backing.entry(key);
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
            outcome = join(key, "", options);
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
        warnServed(key, error);
        return cast(stale);
    }

    /** Logs that a stale value of {@code key} is served instead of a failure, once per key and minute. */
    void warnServed(String key, Throwable error) {
        if (warnings.shouldWarn(key)) {
            LOG.log(Level.WARNING, "computing '" + key + "' failed" + (error == null ? " lately" : "")
                    + "; its stale value is served, and at most one new attempt is made per " + errorBackoff
                    + ". This is logged once a minute per key.", error);
        }
    }

    /** Starts the background refresh of {@code key}, or counts it skipped when the node's refresh pool is full. */
    <V> void startRefresh(String key, ComputeOptions options, Duration refreshAfter, Supplier<V> compute) {
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
            outcome = joinRefresh(key, options, refreshAfter);
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
            failOwn(turn.ticket(), e);
            events.report(ComputeResult.REFRESH_FAILED, started);
            if (warnings.shouldWarn(key)) {
                LOG.log(Level.WARNING, "refreshing '" + key + "' failed; the old value stays until its TTL, and the"
                        + " next refresh is tried after " + errorBackoff + ". This is logged once a minute per key.", e);
            }
            return;
        }
        try {
            backing.complete(turn.ticket(), value, options.ttl());
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.REFRESH_FAILED, started);
            LOG.log(Level.WARNING, () -> "could not store the refreshed value of '" + key + "'", e);
            return;
        }
        events.report(ComputeResult.REFRESHED, started);
    }

    void backOff(String key) {
        try {
            backing.backOff(key, errorBackoff);
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
        ComputeResult computed = backing.promoted(ticket) ? ComputeResult.PROMOTED : ComputeResult.COMPUTED;
        V value;
        try {
            value = computing(ticket.key(), compute);
        } catch (Throwable e) {
            if (stale != null) {
                backOff(ticket.key()); // before the failure is known: callers that come later find it backing off
                failOwn(ticket, e);
                return served(ticket.key(), stale, started, e);
            }
            failOwn(ticket, e);
            events.report(ComputeResult.FAILED, started);
            throw sneaky(e);
        }
        try {
            backing.complete(ticket, value, ttl);
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

    /** Starts or joins the node-local flight of {@code key}; the caller with its turn then asks the backing. */
    private ComputeOutcome join(String key, String hint, ComputeOptions options) {
        long since = clock.nanoTime();
        ComputeOutcome local = flights.join(key, hint, options);
        return local instanceof ComputeOutcome.Compute turn ? backing.turn(key, turn, hint, options, since) : local;
    }

    /** A refresh's own flight of {@code key}; {@code null} when one is in flight or the engine is closed. */
    private ComputeOutcome joinRefresh(String key, ComputeOptions options, Duration refreshAfter) {
        if (closed) {
            return null;
        }
        long since = clock.nanoTime();
        ComputeOutcome local = flights.joinRefresh(key, options);
        return local instanceof ComputeOutcome.Compute turn
                ? backing.refreshTurn(key, turn, options, refreshAfter, since) : local;
    }

    /**
     * Hands the caller's own failure to the miss's waiters; never throws (the caller rethrows its own), even when
     * the store could not be told (this node's waiters get it all the same).
     */
    void failOwn(ComputeTicket ticket, Throwable error) {
        try {
            backing.fail(ticket, error);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> "could not tell the other nodes that computing '" + ticket.key()
                    + "' failed; their waiters take over once its compute timeout ends", e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw closedError();
        }
    }

    IllegalStateException closedError() {
        return new IllegalStateException("this " + name + " is closed");
    }

    private ComputeOutcome joinReporting(String key, String hint, ComputeOptions options, long started) {
        try {
            return join(key, hint, options);
        } catch (RuntimeException | Error e) {
            events.report(ComputeResult.FAILED, started);
            throw e;
        }
    }

    private Object read(String key, long started) {
        try {
            return backing.get(key);
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
