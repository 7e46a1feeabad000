package dev.locks.support;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.internal.ComputeCalls;
import dev.locks.internal.ComputeEngine;
import dev.locks.spi.JdkValueSerializer;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.ValueSerializer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The base of a {@link ComputeCache}: the core's compute engine, with its values in memory or in front of a
 * backend's {@link RemoteComputeStore}. A backend's cache only chooses the store and its own settings (see
 * {@link Builder}); every operation of {@link ComputeCache} is the engine's, the same for every backend: the hit
 * path, the single flight of each miss on this node, the caller's own computation, stale values and background
 * refreshes, and the events an observer receives.
 *
 * <p>In memory ({@code dev.locks.local.LocalComputeCache}) a miss's computer is decided in this JVM and its value
 * stored in a bounded map. With a store, the callers of a key on one node meet in the node's memory first, and one
 * of them takes part in the protocol across nodes for all of them ({@link RemoteComputeCache} says how).
 *
 * <p>A backend's cache, in outline:
 *
 * <pre>{@code
 * public final class MyComputeCache extends RemoteComputeCache {
 *     private MyComputeCache(Builder builder, MyComputeStore store) {
 *         super(builder, store);
 *     }
 *
 *     public static Builder builder(MyClient client) {
 *         return new Builder(client);
 *     }
 *
 *     public static final class Builder extends RemoteComputeCache.Builder<Builder> {
 *         private final MyClient client;
 *
 *         private Builder(MyClient client) {
 *             super("mine"); // the backend's name
 *             this.client = client;
 *         }
 *
 *         public MyComputeCache build() {
 *             return new MyComputeCache(this, new MyComputeStore(client));
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public abstract class AbstractComputeCache implements AsyncComputeCache, AutoCloseable {

    private final ComputeEngine engine;

    /**
     * A cache on {@code builder}'s settings in front of {@code store}, which it subscribes now (the store's server
     * need not be up yet) and closes with {@link #close()}; {@code null} for a cache whose values live in this JVM
     * (the in-memory backend).
     */
    protected AbstractComputeCache(Builder<?> builder, RemoteComputeStore store) {
        this(builder, store, store == null ? null : JdkValueSerializer.withJdkTypes(
                Thread.currentThread().getContextClassLoader(), List.of(), "the cache's serializer"));
    }

    /**
     * A cache on {@code builder}'s settings in front of {@code store}, whose values it writes and reads with
     * {@code serializer} (every node of the cache must use the same): a value {@code serializer} cannot write fails
     * its miss with the serializer's exception; one it cannot read is a miss. Both {@code null} for a cache whose
     * values live in this JVM.
     */
    protected AbstractComputeCache(Builder<?> builder, RemoteComputeStore store, ValueSerializer serializer) {
        if ((store == null) != (serializer == null)) {
            throw new IllegalArgumentException("a store needs a serializer, and a serializer a store");
        }
        this.engine = new ComputeEngine(builder.settings(), store, serializer, getClass().getSimpleName());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Waits with the compute timeout and the wait time of {@link #defaultOptions()}.
     */
    @Override
    public final <V> V fetchOrCompute(String key, Duration ttl, Supplier<V> compute) {
        return engine.fetchOrCompute(key, ttl, compute);
    }

    @Override
    public final <V> V fetchOrCompute(String key, ComputeOptions options, Supplier<V> compute) {
        return engine.fetchOrCompute(key, options, compute);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Waits with the compute timeout of {@link #defaultOptions()}, and without a wait time: until the result
     * comes or the caller is promoted.
     */
    @Override
    public ComputeOutcome begin(String key, Duration ttl, String hint) {
        return engine.begin(key, ttl, hint);
    }

    @Override
    public ComputeOutcome begin(String key, ComputeOptions options, String hint) {
        return engine.begin(key, options, hint);
    }

    @Override
    public final CompletableFuture<ComputeOutcome> beginAsync(String key, ComputeOptions options, String hint) {
        return engine.beginAsync(key, options, hint);
    }

    @Override
    public final <V> CompletableFuture<V> fetchOrComputeAsync(String key, ComputeOptions options,
            Supplier<? extends CompletionStage<V>> compute) {
        return engine.fetchOrComputeAsync(key, options, compute);
    }

    /**
     * {@inheritDoc}
     *
     * @throws RuntimeException when {@code value} cannot be stored: the miss fails with it
     */
    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        return engine.complete(ticket, value, ttl);
    }

    @Override
    public boolean fail(ComputeTicket ticket, Throwable error) {
        return engine.fail(ticket, error);
    }

    /** {@inheritDoc} A miss whose computer is overdue with nobody waiting ends here and is not shown. */
    @Override
    public List<Computation> computations() {
        return engine.computations();
    }

    /**
     * {@inheritDoc} A computation of the key in flight on this node still answers its own caller and the callers
     * waiting for it, but stores nothing; callers on this node that come after this returns compute anew.
     */
    @Override
    public void invalidate(String key) {
        engine.invalidate(key);
    }

    /**
     * {@inheritDoc} This node's; may count an overdue miss with nobody waiting until {@link #computations()}
     * ends it.
     */
    @Override
    public int inFlightCount() {
        return engine.inFlightCount();
    }

    @Override
    public final String backend() {
        return engine.backend();
    }

    @Override
    public final ComputeOptions defaultOptions() {
        return engine.defaultOptions();
    }

    /**
     * Starts no more background refreshes and closes the store (its subscription), if any; later calls throw
     * {@link IllegalStateException}.
     */
    @Override
    public void close() {
        engine.close();
    }

    /**
     * Whether a caller of {@code key} on this node would now join a computation in flight here: for a backend's
     * tests (override it to open it to the backend's package).
     */
    protected boolean joinsComputationOf(String key) {
        return engine.joinsComputationOf(key);
    }

    /** How many values this cache keeps in this JVM, after pending evictions: in memory, all of them; else 0. */
    protected final long valuesHeld() {
        return engine.storedCount();
    }

    /** The weight of the values this cache keeps in this JVM ({@link Builder#maxWeight}); 0 when not weighed. */
    protected final long valuesWeight() {
        return engine.storedWeight();
    }

    /**
     * The settings every backend's compute cache builder has; each setter returns the concrete builder. A
     * backend's builder adds its own settings and a {@code build()} that calls its cache's constructor. Defaults:
     * {@link ComputeOptions#defaults()} (TTL 5 minutes, compute timeout 30 seconds), the system clock, no
     * observer, an error back-off of 1 second, 4 background refreshes at once; in front of a store a poll
     * interval of 1 second, in memory 10,000 values.
     *
     * @param <B> the concrete builder
     */
    public abstract static class Builder<B extends Builder<B>> {

        private final String backend;
        private ComputeOptions defaultOptions = ComputeOptions.defaults();
        private LocksClock clock = LocksClock.system();
        private LocksObserver observer = LocksObserver.NONE;
        private Duration pollInterval = ComputeEngine.POLL_INTERVAL;
        private Duration errorBackoff = ComputeEngine.ERROR_BACKOFF;
        private int refreshMaxConcurrent = ComputeEngine.REFRESH_MAX_CONCURRENT;
        private long maxEntries = ComputeEngine.MAX_ENTRIES;
        private long maxWeight;
        private ToLongFunction<Object> weigher;

        /** A builder for the backend of short name {@code backend} ({@link ComputeCache#backend()}). */
        protected Builder(String backend) {
            this.backend = requireSetting(backend, "backend");
        }

        /**
         * The TTL ({@code locks.compute.default-ttl}) and compute timeout ({@code locks.compute.timeout}) of
         * calls that give none, and their wait time (none by default).
         */
        public B defaultOptions(ComputeOptions options) {
            this.defaultOptions = requireSetting(options, "defaultOptions");
            return self();
        }

        /**
         * The time of compute timeouts on this node, of wait times, of the timestamps operations see, and of
         * the observer's durations. In front of a store, TTLs and compute locks expire by the store's clock; in
         * memory, by this one.
         */
        public B clock(LocksClock clock) {
            this.clock = requireSetting(clock, "clock");
            return self();
        }

        /**
         * While a stale value is served after a failure, or after a refresh failed, at most one new attempt per key
         * per this, across all nodes ({@code locks.compute.error-backoff}, default 1 second); must be positive.
         */
        public B errorBackoff(Duration errorBackoff) {
            this.errorBackoff = ComputeCalls.requireErrorBackoff(errorBackoff);
            return self();
        }

        /**
         * Background refreshes ({@link ComputeOptions#withRefreshAfter}) running at once on this node
         * ({@code locks.compute.refresh.max-concurrent}, default 4); beyond it a refresh is skipped. Must be positive.
         */
        public B refreshMaxConcurrent(int refreshMaxConcurrent) {
            this.refreshMaxConcurrent = ComputeCalls.requireRefreshMaxConcurrent(refreshMaxConcurrent);
            return self();
        }

        /** Told how every call ended; one that throws is logged and ignored. */
        public B observer(LocksObserver observer) {
            this.observer = requireSetting(observer, "observer");
            return self();
        }

        /**
         * How often a waiter looks at the store by itself, should a notice be lost; default 1 second. For tests
         * that count round trips: a backend's builder that offers it overrides it. Unused in memory.
         */
        protected B pollInterval(Duration pollInterval) {
            this.pollInterval = requireSetting(pollInterval, "pollInterval");
            return self();
        }

        /**
         * In memory, the bound of the value store: at most this many values; must be positive; default 10,000.
         * Unused with {@link #maxWeight}, and in front of a store (which bounds its own). The in-memory backend's
         * builder offers it.
         */
        protected B maxEntries(long maxEntries) {
            if (maxEntries <= 0) {
                throw new IllegalArgumentException("maxEntries must be > 0, was " + maxEntries);
            }
            this.maxEntries = maxEntries;
            return self();
        }

        /**
         * In memory, bounds the value store by the weight of its values rather than by their count: the sum of
         * {@code weigher}'s weights stays within {@code maxWeight}; must be positive. Unused in front of a store.
         * The in-memory backend's builder offers it.
         */
        protected B maxWeight(long maxWeight, ToLongFunction<Object> weigher) {
            if (maxWeight <= 0) {
                throw new IllegalArgumentException("maxWeight must be > 0, was " + maxWeight);
            }
            this.weigher = requireSetting(weigher, "weigher");
            this.maxWeight = maxWeight;
            return self();
        }

        /** The engine's settings; throws {@link IllegalArgumentException} naming the setting that is invalid. */
        final ComputeEngine.Settings settings() {
            return new ComputeEngine.Settings(backend, defaultOptions, clock, observer, errorBackoff,
                    refreshMaxConcurrent, pollInterval, new ComputeEngine.Bounds(maxEntries, maxWeight, weigher));
        }

        /**
         * {@code value}, for a backend's own setting {@code name}.
         *
         * @throws IllegalArgumentException naming the setting when {@code value} is {@code null}
         */
        protected static <T> T requireSetting(T value, String name) {
            return ComputeCalls.requireSetting(value, name);
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }
    }
}
