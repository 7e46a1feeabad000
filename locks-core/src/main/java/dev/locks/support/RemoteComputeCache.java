package dev.locks.support;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeFailedException;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.spi.JdkValueSerializer;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.ValueSerializer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;

/**
 * The base of a {@link ComputeCache} across nodes (JVMs) on a backend's {@link RemoteComputeStore}: values shared by
 * every node that uses the same store, each miss computed by one caller across all of them. A backend's cache only
 * chooses the store and its own settings (see {@link Builder}); the protocol is the core's, the same for every
 * store: an {@link AbstractComputeCache} in front of the store.
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
public abstract class RemoteComputeCache extends AbstractComputeCache {

    /**
     * A cache on {@code builder}'s settings in front of {@code store}, which it subscribes now (the store's server
     * need not be up yet) and closes with {@link #close()}; values are written and read by JDK serialization of
     * the JDK's value types ({@link JdkValueSerializer#withJdkTypes}).
     */
    protected RemoteComputeCache(Builder<?> builder, RemoteComputeStore store) {
        super(builder, requireSetting(store, "store"));
    }

    /**
     * A cache on {@code builder}'s settings in front of {@code store}, whose values it writes and reads with
     * {@code serializer} (every node of the cache must use the same); it subscribes the store now (the store's
     * server need not be up yet) and closes it with {@link #close()}. A value {@code serializer} cannot write fails
     * its miss with the serializer's exception; one it cannot read is a miss.
     */
    protected RemoteComputeCache(Builder<?> builder, RemoteComputeStore store, ValueSerializer serializer) {
        super(builder, requireSetting(store, "store"), requireSetting(serializer, "serializer"));
    }

    private static <T> T requireSetting(T value, String name) {
        return AbstractComputeCache.Builder.requireSetting(value, name);
    }

    /**
     * {@inheritDoc} Tickets work on any node of this cache. Waits with the compute timeout of
     * {@link #defaultOptions()}, and without a wait time: until the result comes or the caller is promoted.
     *
     * @throws LockUnavailableException when the store cannot be reached (this node's waiters get it too)
     */
    @Override
    public ComputeOutcome begin(String key, Duration ttl, String hint) {
        return super.begin(key, ttl, hint);
    }

    /**
     * {@inheritDoc} Tickets work on any node of this cache.
     *
     * @throws LockUnavailableException when the store cannot be reached (this node's waiters get it too)
     */
    @Override
    public ComputeOutcome begin(String key, ComputeOptions options, String hint) {
        return super.begin(key, options, hint);
    }

    /**
     * {@inheritDoc}
     *
     * @throws LockUnavailableException when the store cannot be reached (this node's waiters get it too)
     * @throws RuntimeException the store's, when {@code value} cannot be written: the miss fails with it
     */
    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        return super.complete(ticket, value, ttl);
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
        return super.fail(ticket, error);
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
        return super.computations();
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
        super.invalidate(key);
    }

    @Override
    public final int inFlightCount() {
        return super.inFlightCount();
    }

    /** Closes the store (its subscription); later calls throw {@link IllegalStateException}. */
    @Override
    public void close() {
        super.close();
    }

    /**
     * The settings every backend's compute cache builder has (see {@link AbstractComputeCache.Builder}), and how
     * often a waiter looks at the store by itself ({@link #pollInterval}, for a backend's tests).
     *
     * @param <B> the concrete builder
     */
    public abstract static class Builder<B extends Builder<B>> extends AbstractComputeCache.Builder<B> {

        /** A builder for the backend of short name {@code backend} ({@link ComputeCache#backend()}). */
        protected Builder(String backend) {
            super(backend);
        }
    }
}
