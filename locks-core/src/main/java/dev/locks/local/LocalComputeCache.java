package dev.locks.local;

import static dev.locks.internal.ComputeCalls.checkComplete;
import static dev.locks.internal.ComputeCalls.checkFail;
import static dev.locks.internal.ComputeCalls.requireSetting;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.internal.ComputeCallFlow;
import dev.locks.internal.ComputeCalls;
import dev.locks.internal.ComputeEvents;
import dev.locks.internal.ComputeFlights;
import dev.locks.internal.FlightComputer;
import dev.locks.internal.Keys;
import dev.locks.internal.ValueStore.Entry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The in-memory {@link ComputeCache}: values in a bounded Caffeine cache, each with its own TTL; misses
 * computed at most once at a time per key in this JVM.
 *
 * <ul>
 *   <li>A hit costs about a Caffeine {@code getIfPresent}: no lock, no allocation.</li>
 *   <li>On a miss, the caller that starts it looks the key up once more, then computes; every other caller
 *       of the key waits (in its own thread) and receives the same value, or the same exception object.
 *       A value is stored with its TTL ({@link Duration#ZERO}: no expiry) unless it is {@code null}; an
 *       exception stores nothing, so the next call computes again.</li>
 *   <li>A computer not done within its compute timeout is replaced by the oldest waiter, which computes
 *       in its turn. The first of them to finish settles the miss; a later finisher's value is dropped,
 *       but its own caller still receives it. With nobody waiting, the overdue miss ends when the key is
 *       next asked for (that caller computes) or {@link #computations()} runs.</li>
 *   <li>A waiter's own wait time ({@link ComputeOptions#withWaitTime}) ends only its wait, with
 *       {@link ComputeTimeoutException}. An interrupted waiter leaves with a
 *       {@link CancellationException}, its interrupt status set. Either way the computation goes on.</li>
 * </ul>
 *
 * <p>Thread-safe. Waiters need no thread of their own and the cache starts none (Caffeine's maintenance
 * runs on its default executor).
 */
public final class LocalComputeCache implements ComputeCache {

    private final LocalComputeCacheStore store;
    private final ComputeFlights flights;
    private final ComputeCallFlow calls;
    private final ComputeEvents events;

    private LocalComputeCache(Builder builder) {
        this.store = new LocalComputeCacheStore(builder.maxEntries, builder.maxWeight, builder.weigher, builder.clock);
        this.flights = new ComputeFlights(store, builder.clock);
        this.events = new ComputeEvents(builder.observer, builder.clock);
        this.calls = new ComputeCallFlow(builder.defaults, events, new Flights(), builder.clock, builder.errorBackoff,
                builder.refreshMaxConcurrent);
    }

    /** A cache with every default: see {@link Builder}. */
    public LocalComputeCache() {
        this(builder());
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Waits with the compute timeout and the wait time of {@link #defaultOptions()}.
     */
    @Override
    public <V> V fetchOrCompute(String key, Duration ttl, Supplier<V> compute) {
        return calls.fetchOrCompute(key, ttl, compute);
    }

    @Override
    public <V> V fetchOrCompute(String key, ComputeOptions options, Supplier<V> compute) {
        return calls.fetchOrCompute(key, options, compute);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Waits with the compute timeout of {@link #defaultOptions()}, and without a wait time: until the
     * result comes or the caller is promoted.
     */
    @Override
    public ComputeOutcome begin(String key, Duration ttl, String hint) {
        return calls.begin(key, ttl, hint);
    }

    @Override
    public ComputeOutcome begin(String key, ComputeOptions options, String hint) {
        return calls.begin(key, options, hint);
    }

    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        checkComplete(ticket, ttl);
        FlightComputer computer = flights.complete(ticket, value, ttl);
        if (computer != null) {
            events.report(computer.promoted() ? ComputeResult.PROMOTED : ComputeResult.COMPUTED,
                    computer.startedNanos());
        }
        return computer != null;
    }

    @Override
    public boolean fail(ComputeTicket ticket, Throwable error) {
        checkFail(ticket, error);
        FlightComputer computer = flights.fail(ticket, error);
        if (computer != null) {
            events.report(ComputeResult.FAILED, computer.startedNanos());
        }
        return computer != null;
    }

    /** {@inheritDoc} A miss whose computer is overdue with nobody waiting ends here and is not shown. */
    @Override
    public List<Computation> computations() {
        return flights.snapshot();
    }

    /**
     * {@inheritDoc} A computation of the key in flight still answers its own caller and the callers waiting for
     * it, but stores nothing; callers that come after this returns compute anew.
     */
    @Override
    public void invalidate(String key) {
        Keys.requireValid(key, 0);
        flights.invalidate(key); // first: no completion of the old miss can store after the removal below
        store.remove(key);
    }

    /** {@inheritDoc} May count an overdue miss with nobody waiting until {@link #computations()} ends it. */
    @Override
    public int inFlightCount() {
        return flights.size();
    }

    @Override
    public String backend() {
        return "local";
    }

    @Override
    public ComputeOptions defaultOptions() {
        return calls.defaultOptions();
    }

    /** How many values are stored, after pending evictions; for tests. */
    long storedCount() {
        return store.size();
    }

    /** The weight of the stored values ({@link Builder#maxWeight}), after pending evictions; for tests. */
    long storedWeight() {
        return store.weight();
    }

    /** The value store and this JVM's single flight, under the shared call flow. */
    private final class Flights implements ComputeCallFlow.Backend {

        @Override
        public Object lookUp(String key) {
            return store.get(key);
        }

        @Override
        public ComputeOutcome join(String key, String hint, ComputeOptions options) {
            return flights.join(key, hint, options);
        }

        @Override
        public Entry lookUpEntry(String key) {
            return store.entry(key);
        }

        @Override
        public ComputeOutcome joinRefresh(String key, ComputeOptions options, Duration refreshAfter) {
            return flights.joinRefresh(key, options, refreshAfter);
        }

        @Override
        public boolean backOff(String key, Duration backOff) {
            return store.backOff(key, backOff);
        }

        @Override
        public void completeOwn(ComputeTicket ticket, Object value, Duration ttl) {
            flights.complete(ticket, value, ttl);
        }

        @Override
        public void failOwn(ComputeTicket ticket, Throwable error) {
            flights.fail(ticket, error);
        }

        @Override
        public boolean promoted(ComputeTicket ticket) {
            return FlightComputer.promoted(ticket);
        }

        /** Caffeine compares keys as strings, and only a valid key is ever stored: a hit need not check it. */
        @Override
        public boolean exactKeys() {
            return true;
        }
    }

    /**
     * Builds a {@link LocalComputeCache}. Defaults: {@link ComputeOptions#defaults()} (TTL 5 minutes, compute
     * timeout 30 seconds), 10,000 entries (no weight), the system clock, no observer.
     */
    public static final class Builder {

        private ComputeOptions defaults = ComputeOptions.defaults();
        private long maxEntries = 10_000;
        private long maxWeight;
        private ToLongFunction<Object> weigher;
        private LocksClock clock = LocksClock.system();
        private LocksObserver observer = LocksObserver.NONE;
        private Duration errorBackoff = ComputeCallFlow.ERROR_BACKOFF;
        private int refreshMaxConcurrent = ComputeCallFlow.REFRESH_MAX_CONCURRENT;

        private Builder() {
        }

        /**
         * While a stale value is served after a failure, or after a refresh failed, at most one new attempt per key
         * per this ({@code locks.compute.error-backoff}, default 1 second); must be positive.
         */
        public Builder errorBackoff(Duration errorBackoff) {
            this.errorBackoff = ComputeCalls.requireErrorBackoff(errorBackoff);
            return this;
        }

        /**
         * Background refreshes ({@link ComputeOptions#withRefreshAfter}) running at once
         * ({@code locks.compute.refresh.max-concurrent}, default 4); beyond it a refresh is skipped. Must be positive.
         */
        public Builder refreshMaxConcurrent(int refreshMaxConcurrent) {
            this.refreshMaxConcurrent = ComputeCalls.requireRefreshMaxConcurrent(refreshMaxConcurrent);
            return this;
        }

        /**
         * The TTL ({@code locks.compute.default-ttl}) and compute timeout ({@code locks.compute.timeout}) of
         * calls that give none, and their wait time (none by default).
         */
        public Builder defaultOptions(ComputeOptions options) {
            this.defaults = requireSetting(options, "defaultOptions");
            return this;
        }

        /**
         * The bound of the value store ({@code locks.compute.max-entries}); must be positive. Unused with
         * {@link #maxWeight}.
         */
        public Builder maxEntries(long maxEntries) {
            if (maxEntries <= 0) {
                throw new IllegalArgumentException("maxEntries must be > 0, was " + maxEntries);
            }
            this.maxEntries = maxEntries;
            return this;
        }

        /**
         * Bounds the value store by the weight of its values rather than by their count: the sum of
         * {@code weigher}'s weights of the stored values stays within {@code maxWeight}, the values least likely to
         * be used again evicted first. For values of very different sizes, of which a count alone would let a few
         * huge ones fill the heap: bytes, say, with a weigher that estimates a value's size (a per-value overhead
         * included, so that many tiny values are bounded too). Replaces {@link #maxEntries}, as Caffeine bounds one
         * or the other. A value is weighed once, when it is stored: a weight must be {@code >= 0}, one above
         * {@link Integer#MAX_VALUE} counts as that, and a weigher that throws fails the computation's callers as
         * a value that cannot be stored.
         */
        public Builder maxWeight(long maxWeight, ToLongFunction<Object> weigher) {
            if (maxWeight <= 0) {
                throw new IllegalArgumentException("maxWeight must be > 0, was " + maxWeight);
            }
            this.weigher = requireSetting(weigher, "weigher");
            this.maxWeight = maxWeight;
            return this;
        }

        /** The time of TTLs, compute timeouts and wait times; also drives the value store's expiry. */
        public Builder clock(LocksClock clock) {
            this.clock = requireSetting(clock, "clock");
            return this;
        }

        /** Told how every call ended; one that throws is logged and ignored. */
        public Builder observer(LocksObserver observer) {
            this.observer = requireSetting(observer, "observer");
            return this;
        }

        public LocalComputeCache build() {
            return new LocalComputeCache(this);
        }
    }
}
