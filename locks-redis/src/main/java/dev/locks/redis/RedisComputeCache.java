package dev.locks.redis;

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
import dev.locks.support.RemoteComputeCache;
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
 * {@link #close()} ends the subscription. Thread-safe; build one per application and share it. The protocol is
 * the core's ({@link RemoteComputeCache}), on a {@link dev.locks.spi.RemoteComputeStore} of Redis scripts.
 */
public final class RedisComputeCache extends RemoteComputeCache {

    private final RedisComputeStore store;

    private RedisComputeCache(Builder builder, RedisComputeStore store, RedisSerializer<Object> serializer) {
        super(builder, store, new RedisValueSerializer(serializer));
        this.store = store;
    }

    /** A builder on the application's connection factory; every other setting has a default. */
    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    /**
     * {@inheritDoc}
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
     * @throws IllegalArgumentException when {@code value} cannot be stored (not {@link java.io.Serializable}, or not
     *         an allowed class: the message names the class, the reason and the fix; SPEC 4): the miss fails with it
     *         on every node, and nothing is stored
     */
    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        return super.complete(ticket, value, ttl);
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
        super.invalidate(key);
    }

    /**
     * Ends this node's subscription; later calls throw {@link IllegalStateException}. The connection factory
     * stays open.
     */
    @Override
    public void close() {
        super.close();
    }

    /**
     * Subscribes anew, after the connection factory was stopped and started again (an application context that
     * was paused and restarted): stopping a factory ends the subscription's connection silently. Waiters poll
     * meanwhile, so nothing is lost, only slower.
     */
    public void resubscribe() {
        store.resubscribe();
    }

    /** Whether a caller of {@code key} on this node would now join a computation in flight (tests). */
    @Override
    protected boolean joinsComputationOf(String key) {
        return super.joinsComputationOf(key);
    }

    /** How many times Redis confirmed this node's subscription (tests: it is up, and comes back after an outage). */
    int subscriptionConfirmations() {
        return store.subscriptionConfirmations();
    }

    /**
     * Builds a {@link RedisComputeCache}. Defaults: key prefix {@code "locks:"}, JDK serialization of the JDK's
     * value types ({@link AllowListJdkSerializer}),
     * {@link ComputeOptions#defaults()} (TTL 5 minutes, compute timeout 30 seconds), the system clock, no
     * observer. TTLs and compute locks expire by the Redis server's clock.
     */
    public static final class Builder extends RemoteComputeCache.Builder<Builder> {

        private final RedisConnectionFactory connectionFactory;
        private String keyPrefix = "locks:";
        private RedisSerializer<Object> serializer;
        private Duration timeout = RedisLockRegistry.DEFAULT_TIMEOUT;

        private Builder(RedisConnectionFactory connectionFactory) {
            super("redis");
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
         * The longest any one Redis round trip of the cache may take ({@code locks.redis.timeout}), whatever the
         * client's own command timeout: a round trip not answered by then fails with
         * {@link dev.locks.LockUnavailableException}. Default {@link RedisLockRegistry#DEFAULT_TIMEOUT}.
         *
         * @throws IllegalArgumentException unless positive
         */
        public Builder timeout(Duration timeout) {
            this.timeout = RedisLockRegistry.positiveTimeout(timeout);
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

        /** How often a waiter looks at Redis by itself, should a notice be lost; for tests that count round trips. */
        @Override
        protected Builder pollInterval(Duration pollInterval) {
            return super.pollInterval(pollInterval);
        }

        /** Builds the cache and subscribes it; Redis need not be up yet. */
        public RedisComputeCache build() {
            if (serializer == null) {
                serializer = AllowListJdkSerializer.withJdkTypes(Thread.currentThread().getContextClassLoader(),
                        List.of());
            }
            return new RedisComputeCache(this, new RedisComputeStore(connectionFactory, keyPrefix, timeout), serializer);
        }
    }
}
