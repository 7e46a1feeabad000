package dev.locks.redis;

import static dev.locks.internal.ComputeCalls.requireSetting;
import static dev.locks.internal.ComputeCalls.requireTicket;
import static dev.locks.internal.ComputeCalls.requireTtl;

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
import dev.locks.internal.AbstractComputeCache;
import dev.locks.internal.ComputeEvents;
import dev.locks.internal.Keys;
import dev.locks.internal.UnreadableValues;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * The Redis {@link ComputeCache}: values shared by every node (JVM) that uses the same Redis and key prefix,
 * each miss computed by one caller across all of them, through the application's {@link RedisConnectionFactory}.
 *
 * <ul>
 *   <li>A hit is one {@code GET} and a deserialization.</li>
 *   <li>On a miss, the callers of a key on one node meet in the node's memory first; one of them takes part in
 *       the protocol across nodes for all of them (one Lua script call): it finds the value after all, or it
 *       computes, or another node's computer does and it waits. A computed value is stored in Redis with its
 *       TTL ({@link Duration#ZERO}: no expiry) in the same script call that settles the miss and publishes one
 *       notice; each node wakes its waiters from one subscription for all keys. A {@code null} result is
 *       handed to every waiter and stored nowhere.</li>
 *   <li>A failure reaches the waiters on the computer's node as the exception object itself, and those on
 *       other nodes as a {@link ComputeFailedException} with the exception's class name and message; nothing
 *       is stored, so the next call computes again.</li>
 *   <li>The compute lock in Redis expires after the computer's compute timeout: a waiter (the oldest on its
 *       node, first to claim across nodes) then computes in its turn, with the first computer's hint. The
 *       first successful completion from any computer of the miss is stored and handed to every waiter; later
 *       ones, a demoted computer's failure and any ticket of a miss that is over change nothing. With nobody
 *       waiting, the expiry ends the miss. A computer's own caller always gets its own result or exception.</li>
 *   <li>A waiter's own wait time ends only its own wait, with {@link ComputeTimeoutException}; an interrupted
 *       waiter leaves with a {@link CancellationException}. The computation goes on.</li>
 *   <li>When Redis cannot be reached, calls throw {@link LockUnavailableException} (the callers waiting on this
 *       node included); when it is back, everything works again. How soon an outage shows depends on the
 *       client's command timeout (see the {@linkplain dev.locks.redis package documentation}).</li>
 * </ul>
 *
 * <p>Round trips: a hit 1 ({@code GET}); the computer of a miss 3 ({@code GET}, the claim, the completion or
 * failure); every other caller on the computer's node 1 (its {@code GET}, then it waits in memory); on each
 * other node, its first caller 2 ({@code GET}, the claim) plus one {@code GET} for the node when the value
 * lands, its other callers 1. A waiter claims again when the compute lock expires, and once a second should a
 * notice be lost.
 *
 * <p>Values go through a {@link RedisSerializer} ({@link Builder#serializer}); the default is JDK
 * serialization with an allow-list ({@link AllowListJdkSerializer}), which needs {@link java.io.Serializable}
 * values whose classes every node has and the allow-list names. A stored value that cannot be read (corrupt,
 * a class renamed or refused) is a miss: removed, computed again, logged at {@code WARN} once a minute per key
 * and counted as {@link ComputeResult#UNREADABLE}; it never fails the call. On Redis Cluster, give the key prefix
 * a hash tag (say {@code {locks}:}).
 *
 * <p>{@link #computations()} shows this node's computations (the computer with its node, this node's waiters);
 * {@link #close()} ends the subscription. Thread-safe; build one per application and share it.
 */
public final class RedisComputeCache extends AbstractComputeCache implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisComputeCache.class.getName());

    private final RedisComputeNode node;
    private volatile boolean closed;

    private RedisComputeCache(Builder builder) {
        super(builder.defaultOptions, new ComputeEvents(builder.observer, builder.clock));
        this.node = new RedisComputeNode(new RedisComputeStore(builder.connectionFactory, builder.keyPrefix,
                builder.serializer, new UnreadableValues(events(), builder.clock)), builder.clock, builder.pollInterval);
    }

    /** A builder on the application's connection factory; every other setting has a default. */
    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    /**
     * {@inheritDoc} Tickets work on any node of this cache.
     *
     * @throws LockUnavailableException when Redis cannot be reached (this node's waiters get it too)
     * @throws SerializationException when the value cannot be written by the serializer (one that cannot be
     *         read is a miss)
     */
    @Override
    public ComputeOutcome begin(String key, Duration ttl, String hint) {
        return super.begin(key, ttl, hint);
    }

    /**
     * {@inheritDoc}
     *
     * @throws LockUnavailableException when Redis cannot be reached (this node's waiters get it too)
     * @throws SerializationException when {@code value} cannot be serialized: the miss fails with it
     */
    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        requireTicket(ticket);
        if (ttl != null) {
            requireTtl(ttl);
        }
        RedisComputeTicket ours = RedisComputeTicket.of(ticket);
        if (ours == null || ticket.key().isBlank()) {
            return false;
        }
        requireOpen();
        long started = node.computingSince(ticket.key(), ours, events().start());
        boolean completed = node.complete(ticket.key(), ours, value, ttl);
        if (completed) {
            events().report(ours.promoted() ? ComputeResult.PROMOTED : ComputeResult.COMPUTED, started);
        }
        return completed;
    }

    /**
     * {@inheritDoc}
     *
     * <p>This node's waiters get {@code error} itself; other nodes' a {@link ComputeFailedException}.
     *
     * @throws LockUnavailableException when Redis cannot be reached (this node's waiters get {@code error})
     */
    @Override
    public boolean fail(ComputeTicket ticket, Throwable error) {
        requireTicket(ticket);
        if (error == null) {
            throw new IllegalArgumentException("error must not be null");
        }
        RedisComputeTicket ours = RedisComputeTicket.of(ticket);
        if (ours == null || ticket.key().isBlank()) {
            return false;
        }
        requireOpen();
        long started = node.computingSince(ticket.key(), ours, events().start());
        boolean failed = node.fail(ticket.key(), ours, error);
        if (failed) {
            events().report(ComputeResult.FAILED, started);
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
    public List<Computation> computations() {
        return node.computations();
    }

    /**
     * {@inheritDoc}
     *
     * <p>One script call deletes the value and sets the miss in flight aside, so that no completion of it is
     * stored and every call that claims the key later, on any node, starts a new computation; the callers that
     * wait for the old one, on every node, still get its value. Callers on this node that come later start anew
     * at once; on another node, once the notice of the invalidation reaches it (one publish: about a round trip),
     * until which a caller there may still join that node's computation in flight and share its result (which is
     * not stored).
     *
     * @throws LockUnavailableException when Redis cannot be reached
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
    public int inFlightCount() {
        return node.inFlightCount();
    }

    @Override
    public String backend() {
        return "redis";
    }

    /**
     * Ends this node's subscription; later calls throw {@link IllegalStateException}. The connection factory
     * stays open.
     */
    @Override
    public void close() {
        closed = true;
        node.close();
    }

    /**
     * Subscribes anew, after the connection factory was stopped and started again (an application context that
     * was paused and restarted): stopping a factory ends the subscription's connection silently. Waiters poll
     * meanwhile, so nothing is lost, only slower.
     */
    public void resubscribe() {
        node.resubscribe();
    }

    /** Whether a caller of {@code key} on this node would now join a computation in flight (tests). */
    boolean joinsComputationOf(String key) {
        return node.joinsComputationOf(key);
    }

    /** How many times Redis confirmed this node's subscription (tests: it is up, and comes back after an outage). */
    int subscriptionConfirmations() {
        return node.subscriptionConfirmations();
    }

    @Override
    protected Object lookUp(String key) {
        return node.get(key);
    }

    @Override
    protected ComputeOutcome join(String key, String hint, ComputeOptions options) {
        return node.take(key, hint, options);
    }

    @Override
    protected void completeOwn(ComputeTicket ticket, Object value, Duration ttl) {
        node.complete(ticket.key(), RedisComputeTicket.of(ticket), value, ttl);
    }

    /**
     * The computer's own caller gets its own exception, even when Redis could not be told (this node's waiters
     * get it all the same).
     */
    @Override
    protected void failOwn(ComputeTicket ticket, Throwable error) {
        try {
            node.fail(ticket.key(), RedisComputeTicket.of(ticket), error);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> "could not tell the other nodes that computing '" + ticket.key()
                    + "' failed; their waiters take over once its compute timeout ends", e);
        }
    }

    @Override
    protected boolean promoted(ComputeTicket ticket) {
        return RedisComputeTicket.of(ticket).promoted();
    }

    @Override
    protected void checkOpen() {
        requireOpen();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this RedisComputeCache is closed");
        }
    }

    /**
     * Builds a {@link RedisComputeCache}. Defaults: key prefix {@code "locks:"}, JDK serialization of the JDK's
     * value types ({@link AllowListJdkSerializer}),
     * {@link ComputeOptions#defaults()} (TTL 5 minutes, compute timeout 30 seconds), the system clock, no
     * observer.
     */
    public static final class Builder {

        private final RedisConnectionFactory connectionFactory;
        private String keyPrefix = "locks:";
        private RedisSerializer<Object> serializer;
        private ComputeOptions defaultOptions = ComputeOptions.defaults();
        private LocksClock clock = LocksClock.system();
        private LocksObserver observer = LocksObserver.NONE;
        private Duration pollInterval = RedisComputeNode.POLL;

        private Builder(RedisConnectionFactory connectionFactory) {
            this.connectionFactory = requireSetting(connectionFactory, "connectionFactory");
        }

        /**
         * The storage namespace of every key in Redis ({@code <prefix>value:<key>}, {@code <prefix>compute:<key>},
         * the channel {@code <prefix>computed}); default {@code "locks:"}. Keys the API shows never carry it.
         */
        public Builder keyPrefix(String keyPrefix) {
            if (requireSetting(keyPrefix, "keyPrefix").isEmpty()) {
                throw new IllegalArgumentException("keyPrefix must not be empty (locks.key-prefix): it is the namespace"
                        + " of this application's keys in Redis");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * How values are written to Redis and read back; default an {@link AllowListJdkSerializer} of the JDK's
         * value types only ({@link AllowListJdkSerializer#JDK_TYPES}), with the thread's context class loader:
         * give one that allows the application's classes too. A value the serializer cannot read is a miss
         * (removed, computed again, logged). A JSON serializer of Spring Data Redis stores portable values. Every
         * node of a cache must use the same.
         */
        public Builder serializer(RedisSerializer<Object> serializer) {
            this.serializer = requireSetting(serializer, "serializer");
            return this;
        }

        /**
         * The TTL ({@code locks.compute.default-ttl}) and compute timeout ({@code locks.compute.timeout}) of
         * calls that give none, and their wait time (none by default).
         */
        public Builder defaultOptions(ComputeOptions options) {
            this.defaultOptions = requireSetting(options, "defaultOptions");
            return this;
        }

        /**
         * The time of compute timeouts on this node, of wait times, of the timestamps operations see, and of
         * the observer's durations. TTLs and compute locks expire by the Redis server's clock.
         */
        public Builder clock(LocksClock clock) {
            this.clock = requireSetting(clock, "clock");
            return this;
        }

        /** Told how every call ended; one that throws is logged and ignored. */
        public Builder observer(LocksObserver observer) {
            this.observer = requireSetting(observer, "observer");
            return this;
        }

        /** How often a waiter looks at Redis by itself, should a notice be lost; for tests that count round trips. */
        Builder pollInterval(Duration pollInterval) {
            this.pollInterval = requireSetting(pollInterval, "pollInterval");
            return this;
        }

        /** Builds the cache and subscribes it; Redis need not be up yet. */
        public RedisComputeCache build() {
            if (serializer == null) {
                serializer = AllowListJdkSerializer.withJdkTypes(Thread.currentThread().getContextClassLoader(),
                        List.of());
            }
            return new RedisComputeCache(this);
        }
    }
}
