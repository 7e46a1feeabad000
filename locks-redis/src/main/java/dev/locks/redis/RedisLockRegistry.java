package dev.locks.redis;

import dev.locks.support.AbstractLockRegistry;
import java.time.Duration;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis {@link dev.locks.LockRegistry}: keyed locks shared by every node (JVM) that uses the same Redis
 * and key prefix, through the application's {@link RedisConnectionFactory}.
 *
 * <ul>
 *   <li>Threads of one node contend in this node's memory first, and re-entry costs no round trip; the keys
 *       a lease newly takes are taken in Redis all-or-nothing in one round trip (a Lua script), and released
 *       in one round trip (compare-and-delete of this lease's keys plus one publish).</li>
 *   <li>Fencing tokens come from one counter in Redis, so they increase across all nodes. On a Redis Cluster
 *       (found out on the first command), keys spread over the slots: a multi-key acquire takes them slot by
 *       slot in ascending slot order, all or nothing, with one counter per slot and each lease's token above
 *       every earlier token of each of its keys (see docs/design.md, "Redis Cluster store").</li>
 *   <li>A waiter is woken as soon as a key it waits for is released on any node: each node subscribes once
 *       to one channel for all keys ({@link Builder#notify(boolean)}; without it waiters poll at their retry
 *       interval). On a Redis Cluster through Lettuce the channel is sharded: a channel per slot, which only its
 *       shard carries, held on one connection per master.</li>
 *   <li>Each lock expires in Redis after its holder's lock timeout, so a crashed node's locks free themselves
 *       after at most that long; with the {@linkplain Builder#watchdog(boolean) watchdog}, live holders' locks
 *       are renewed so that slow work keeps them. A lock of infinite lock timeout is never written without
 *       expiry: its node holds it under a {@linkplain Builder#lease(Duration) lease} that it renews every third
 *       of it (watchdog or not), so a crashed node's "infinite" locks free themselves after that lease.</li>
 *   <li>No starvation: a key someone waits for goes to its longest-waiting waiter, on any node, before a newer
 *       acquirer: each key that has waiters has a queue of their tickets in Redis (see docs/design.md, "Redis store").</li>
 *   <li>When Redis cannot be reached, {@code acquire} throws {@link dev.locks.LockUnavailableException}
 *       (never a {@link dev.locks.LockTimeoutException}); when it is back, everything works again. An outage
 *       shows within the {@linkplain Builder#timeout(Duration) timeout} of a round trip (2 s by default), or the
 *       client's command timeout if that is shorter: see the {@linkplain dev.locks.redis package documentation}
 *       for the client settings to use.</li>
 * </ul>
 *
 * <p>{@link #heldLocks()} lists every node's locks under the key prefix, read from Redis in batches of
 * {@link Builder#cleanupBatchSize(int)} ({@code SCAN}, never {@code KEYS}); {@link #heldCount()} counts this
 * node's. {@link #forceRelease(String)} frees a key whichever node holds it. {@link #close()} stops the
 * watchdog, then releases this node's locks in Redis, then unsubscribes. Thread-safe; build one per
 * application and share it.
 */
public final class RedisLockRegistry extends AbstractLockRegistry {

    private final RedisLockStore store;

    private RedisLockRegistry(Builder builder, RedisLockStore store) {
        super(builder, store);
        this.store = store;
    }

    /** The default of {@link Builder#timeout(Duration)}: 2 seconds. */
    public static final Duration DEFAULT_TIMEOUT = RedisRoundTrip.DEFAULT_TIMEOUT;

    /** The default of {@link Builder#lease(Duration)}. */
    public static final Duration DEFAULT_LEASE = AbstractLockRegistry.StoreBuilder.DEFAULT_LEASE;

    /** A builder on the application's connection factory; every other setting has a default. */
    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    /**
     * Subscribes anew to the release channel (when notifying), after the connection factory was stopped and
     * started again (an application context that was paused and restarted): stopping a factory ends the
     * subscription's connection silently. The subscription's return has every waiter of this node try again at
     * once, so a release missed meanwhile costs nothing more than the pause.
     */
    public void resubscribe() {
        store.resubscribe();
    }

    /**
     * One round trip to Redis, for health checks: a {@code PING} (and on a Redis Cluster, its state), answered
     * or failed within the {@linkplain Builder#timeout(Duration) timeout}.
     *
     * @throws dev.locks.LockUnavailableException when Redis does not answer in time, or a Cluster does not serve
     *         every slot
     */
    public void ping() {
        store.ping();
    }

    /** {@code timeout}, if it is positive. */
    static Duration positiveTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout (locks.redis.timeout) must be a positive duration, was "
                    + timeout);
        }
        return timeout;
    }

    /** The store (tests: its subscription). */
    RedisLockStore store() {
        return store;
    }

    /**
     * Stops the sweep and the watchdog, releases this node's locks in Redis and unsubscribes; later acquires
     * throw {@link IllegalStateException}. The connection factory is the application's and stays open.
     */
    @Override
    public void close() {
        super.close();
    }

    /**
     * Builds a {@link RedisLockRegistry}: the settings of every registry on a store (see
     * {@link AbstractLockRegistry.StoreBuilder}; the clock times leases in this JVM, while expiry in Redis follows
     * the server's clock): the key prefix, the storage namespace of every key in Redis (default
     * {@code "locks:"}); notification, by a publish on release; the lease of infinite locks (default
     * {@link #DEFAULT_LEASE}, at least 3 ms).
     */
    public static final class Builder extends AbstractLockRegistry.StoreBuilder<Builder> {

        private final RedisConnectionFactory connectionFactory;
        private Duration timeout = DEFAULT_TIMEOUT;

        private Builder(RedisConnectionFactory connectionFactory) {
            super("redis", "locks:");
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
        }

        /**
         * The longest any one Redis round trip of the registry may take ({@code locks.redis.timeout}), whatever the
         * client's own command timeout (Lettuce's default is 60 s): a round trip not answered by then fails with
         * {@link dev.locks.LockUnavailableException}, so an acquire never outlives its wait time by more than
         * this, and {@link #ping()} answers within it. Default {@link #DEFAULT_TIMEOUT}.
         *
         * @throws IllegalArgumentException unless positive
         */
        public Builder timeout(Duration timeout) {
            this.timeout = positiveTimeout(timeout);
            return this;
        }

        /**
         * Builds the registry and subscribes it (when notifying); Redis need not be up yet.
         *
         * @throws IllegalArgumentException naming the setting that is invalid
         */
        public RedisLockRegistry build() {
            String keyPrefix = keyPrefix();
            Duration lease = lease();
            if (lease == null || lease.toMillis() < 3) {
                throw new IllegalArgumentException("lease must be at least 3 ms (it is renewed every third of it), was "
                        + lease);
            }
            return new RedisLockRegistry(this,
                    new RedisLockStore(connectionFactory, keyPrefix, notifies(), lease.toMillis(), timeout));
        }
    }
}
