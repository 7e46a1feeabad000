package dev.locks.support;

import static dev.locks.internal.ComputeCalls.checkComplete;
import static dev.locks.internal.ComputeCalls.checkFail;
import static dev.locks.internal.ComputeCalls.requireSetting;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeFailedException;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.internal.ComputeCallFlow;
import dev.locks.internal.ComputeCalls;
import dev.locks.internal.ComputeEvents;
import dev.locks.internal.ComputeValues;
import dev.locks.internal.Keys;
import dev.locks.internal.RemoteComputeNode;
import dev.locks.internal.RemoteTickets;
import dev.locks.internal.UnreadableValues;
import dev.locks.internal.ValueStore;
import dev.locks.spi.JdkValueSerializer;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.ValueSerializer;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;

/**
 * The base of a {@link ComputeCache} across nodes (JVMs) on a backend's {@link RemoteComputeStore}: values shared by
 * every node that uses the same store, each miss computed by one caller across all of them. A backend's cache only
 * chooses the store and its own settings (see {@link Builder}); the protocol is the core's, the same for every
 * store.
 *
 * <ul>
 *   <li>A hit is one {@link RemoteComputeStore#get}.</li>
 *   <li>On a miss, the callers of a key on one node meet in the node's memory first; one of them takes part in
 *       the protocol across nodes for all of them (one {@link RemoteComputeStore#claim}): it finds the value after
 *       all, or it computes, or another node's computer does and it waits. A computed value is stored with its
 *       TTL ({@link Duration#ZERO}: no expiry) in the same step that settles the miss and publishes one notice;
 *       each node wakes its waiters from one subscription for all keys. A {@code null} result is handed to every
 *       waiter and stored nowhere.</li>
 *   <li>A failure reaches the waiters on the computer's node as the exception object itself, and those on other
 *       nodes as a {@link ComputeFailedException} with the exception's class name and message; nothing is
 *       stored, so the next call computes again.</li>
 *   <li>The compute lock in the store expires after the computer's compute timeout: a waiter (the oldest on its
 *       node, first to claim across nodes) then computes in its turn, with the first computer's hint. The first
 *       successful completion from any computer of the miss is stored and handed to every waiter; later ones, a
 *       demoted computer's failure and any ticket of a miss that is over change nothing. With nobody waiting,
 *       the expiry ends the miss. A computer's own caller always gets its own result or exception.</li>
 *   <li>A waiter's own wait time ends only its own wait, with {@link ComputeTimeoutException}; an interrupted
 *       waiter leaves with a {@link CancellationException}. The computation goes on.</li>
 *   <li>When the store cannot be reached, calls throw {@link LockUnavailableException} (the callers waiting on
 *       this node included); when it is back, everything works again.</li>
 * </ul>
 * A waiter claims again when the compute lock expires, and once a {@linkplain Builder#pollInterval poll interval}
 * should a notice be lost. A stored value the store cannot read is a miss: removed, computed again, logged at
 * {@code WARN} once a minute per key and counted as {@link ComputeResult#UNREADABLE}; it never fails the call.
 *
 * <p>{@link #computations()} shows this node's computations (the computer with its node, this node's waiters);
 * {@link #close()} ends the store's subscription. Thread-safe; build one per application and store, and share it.
 */
public abstract class RemoteComputeCache implements ComputeCache, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RemoteComputeCache.class.getName());

    private final RemoteComputeNode node;
    private final ComputeEvents events;
    private final ComputeCallFlow calls;
    private final String backend;
    private volatile boolean closed;

    /**
     * A cache on {@code builder}'s settings in front of {@code store}, which it subscribes now (the store's server
     * need not be up yet) and closes with {@link #close()}; values are written and read by JDK serialization of
     * the JDK's value types ({@link JdkValueSerializer#withJdkTypes}).
     */
    protected RemoteComputeCache(Builder<?> builder, RemoteComputeStore store) {
        this(builder, store, JdkValueSerializer.withJdkTypes(Thread.currentThread().getContextClassLoader(),
                List.of(), "the cache's serializer"));
    }

    /**
     * A cache on {@code builder}'s settings in front of {@code store}, whose values it writes and reads with
     * {@code serializer} (every node of the cache must use the same); it subscribes the store now (the store's
     * server need not be up yet) and closes it with {@link #close()}. A value {@code serializer} cannot write fails
     * its miss with the serializer's exception; one it cannot read is a miss.
     */
    protected RemoteComputeCache(Builder<?> builder, RemoteComputeStore store, ValueSerializer serializer) {
        this.backend = builder.backend;
        this.events = new ComputeEvents(builder.observer, builder.clock);
        this.node = new RemoteComputeNode(new ComputeValues(requireSetting(store, "store"),
                requireSetting(serializer, "serializer")), builder.clock, builder.pollInterval,
                new UnreadableValues(events, builder.clock));
        this.calls = new ComputeCallFlow(builder.defaultOptions, events, new Node(), builder.clock,
                builder.errorBackoff, builder.refreshMaxConcurrent);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Waits with the compute timeout and the wait time of {@link #defaultOptions()}.
     */
    @Override
    public final <V> V fetchOrCompute(String key, Duration ttl, Supplier<V> compute) {
        return calls.fetchOrCompute(key, ttl, compute);
    }

    @Override
    public final <V> V fetchOrCompute(String key, ComputeOptions options, Supplier<V> compute) {
        return calls.fetchOrCompute(key, options, compute);
    }

    /**
     * {@inheritDoc} Tickets work on any node of this cache. Waits with the compute timeout of
     * {@link #defaultOptions()}, and without a wait time: until the result comes or the caller is promoted.
     *
     * @throws LockUnavailableException when the store cannot be reached (this node's waiters get it too)
     */
    @Override
    public ComputeOutcome begin(String key, Duration ttl, String hint) {
        return calls.begin(key, ttl, hint);
    }

    /**
     * {@inheritDoc} Tickets work on any node of this cache.
     *
     * @throws LockUnavailableException when the store cannot be reached (this node's waiters get it too)
     */
    @Override
    public ComputeOutcome begin(String key, ComputeOptions options, String hint) {
        return calls.begin(key, options, hint);
    }

    /**
     * {@inheritDoc}
     *
     * @throws LockUnavailableException when the store cannot be reached (this node's waiters get it too)
     * @throws RuntimeException the store's, when {@code value} cannot be written: the miss fails with it
     */
    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        checkComplete(ticket, ttl);
        RemoteComputeStore.Ticket ours = RemoteTickets.of(ticket);
        if (ours == null || ticket.key().isBlank()) {
            return false;
        }
        requireOpen();
        long started = node.computingSince(ticket.key(), ours, events.start());
        boolean completed = node.complete(ticket.key(), ours, value, ttl);
        if (completed) {
            events.report(ours.promoted() ? ComputeResult.PROMOTED : ComputeResult.COMPUTED, started);
        }
        return completed;
    }

    /**
     * {@inheritDoc}
     *
     * <p>This node's waiters get {@code error} itself; other nodes' a {@link ComputeFailedException}.
     *
     * @throws LockUnavailableException when the store cannot be reached (this node's waiters get {@code error})
     */
    @Override
    public final boolean fail(ComputeTicket ticket, Throwable error) {
        checkFail(ticket, error);
        RemoteComputeStore.Ticket ours = RemoteTickets.of(ticket);
        if (ours == null || ticket.key().isBlank()) {
            return false;
        }
        requireOpen();
        long started = node.computingSince(ticket.key(), ours, events.start());
        boolean failed = node.fail(ticket.key(), ours, error);
        if (failed) {
            events.report(ComputeResult.FAILED, started);
        }
        return failed;
    }

    /**
     * {@inheritDoc}
     *
     * <p>This node's computations only: for each, the computer (its thread and node: another node's while
     * this node waits for it) and the callers waiting on this node. A miss whose computer is overdue with
     * nobody waiting ends here and is not shown.
     */
    @Override
    public final List<Computation> computations() {
        return node.computations();
    }

    /**
     * {@inheritDoc}
     *
     * <p>One {@link RemoteComputeStore#invalidate} deletes the value and sets the miss in flight aside, so that no
     * completion of it is stored and every call that claims the key later, on any node, starts a new
     * computation; the callers that wait for the old one, on every node, still get its value. Callers on this
     * node that come later start anew at once; on another node, once the notice of the invalidation reaches it,
     * until which a caller there may still join that node's computation in flight and share its result (which
     * is not stored).
     *
     * @throws LockUnavailableException when the store cannot be reached
     */
    @Override
    public void invalidate(String key) {
        Keys.requireValid(key, 0);
        requireOpen();
        node.invalidate(key);
    }

    /**
     * {@inheritDoc} This node's; may count an overdue miss with nobody waiting until {@link #computations()}
     * ends it.
     */
    @Override
    public final int inFlightCount() {
        return node.inFlightCount();
    }

    @Override
    public final String backend() {
        return backend;
    }

    @Override
    public final ComputeOptions defaultOptions() {
        return calls.defaultOptions();
    }

    /** Closes the store (its subscription); later calls throw {@link IllegalStateException}. */
    @Override
    public void close() {
        closed = true;
        calls.close();
        node.close();
    }

    /**
     * Whether a caller of {@code key} on this node would now join a computation in flight here: for a backend's
     * tests (override it to open it to the backend's package).
     */
    protected boolean joinsComputationOf(String key) {
        return node.joinsComputationOf(key);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this " + getClass().getSimpleName() + " is closed");
        }
    }

    /** This node's side of the protocol, under the shared call flow. */
    private final class Node implements ComputeCallFlow.Backend {

        @Override
        public Object lookUp(String key) {
            return node.get(key);
        }

        @Override
        public ComputeOutcome join(String key, String hint, ComputeOptions options) {
            return node.take(key, hint, options);
        }

        @Override
        public ValueStore.Entry lookUpEntry(String key) {
            return node.entry(key);
        }

        @Override
        public ComputeOutcome joinRefresh(String key, ComputeOptions options, Duration refreshAfter) {
            return closed ? null : node.refresh(key, options, refreshAfter);
        }

        @Override
        public boolean backOff(String key, Duration backOff) {
            return node.backOff(key, backOff);
        }

        @Override
        public void completeOwn(ComputeTicket ticket, Object value, Duration ttl) {
            node.complete(ticket.key(), RemoteTickets.of(ticket), value, ttl);
        }

        /**
         * The computer's own caller gets its own exception, even when the store could not be told (this node's
         * waiters get it all the same).
         */
        @Override
        public void failOwn(ComputeTicket ticket, Throwable error) {
            try {
                node.fail(ticket.key(), RemoteTickets.of(ticket), error);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, () -> "could not tell the other nodes that computing '" + ticket.key()
                        + "' failed; their waiters take over once its compute timeout ends", e);
            }
        }

        @Override
        public boolean promoted(ComputeTicket ticket) {
            return RemoteTickets.of(ticket).promoted();
        }

        @Override
        public void checkOpen() {
            requireOpen();
        }
    }

    /**
     * The settings every backend's compute cache builder has; each setter returns the concrete builder. A
     * backend's builder adds its own settings and a {@code build()} that calls its cache's constructor. Defaults:
     * {@link ComputeOptions#defaults()} (TTL 5 minutes, compute timeout 30 seconds), the system clock, no
     * observer, a poll interval of 1 second.
     *
     * @param <B> the concrete builder
     */
    public abstract static class Builder<B extends Builder<B>> {

        private final String backend;
        private ComputeOptions defaultOptions = ComputeOptions.defaults();
        private LocksClock clock = LocksClock.system();
        private LocksObserver observer = LocksObserver.NONE;
        private Duration pollInterval = RemoteComputeNode.POLL;
        private Duration errorBackoff = ComputeCallFlow.ERROR_BACKOFF;
        private int refreshMaxConcurrent = ComputeCallFlow.REFRESH_MAX_CONCURRENT;

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
         * the observer's durations. TTLs and compute locks expire by the store's clock.
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
         * that count round trips: a backend's builder that offers it overrides it.
         */
        protected B pollInterval(Duration pollInterval) {
            this.pollInterval = requireSetting(pollInterval, "pollInterval");
            return self();
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
