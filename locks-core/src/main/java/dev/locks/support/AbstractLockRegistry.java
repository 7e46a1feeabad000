package dev.locks.support;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.internal.Keys;
import dev.locks.internal.LockEngine;
import dev.locks.spi.RemoteLockStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The base of a {@link LockRegistry}: the core's lock engine, in memory or in front of a backend's
 * {@link RemoteLockStore}. A backend's registry only chooses the store and its own settings (see
 * {@link Builder}); every operation of {@link LockRegistry} is the engine's, the same for every backend.
 *
 * <p>With a store, this node's locks are held in memory first (threads of one node contend there; re-entry
 * costs no round trip), and the keys a lease newly takes are taken in the store in one call, whose fencing
 * token it gets. Releases, renewals, listing and forced releases go to the store too.
 *
 * <p>A backend's registry, in outline:
 *
 * <pre>{@code
 * public final class MyLockRegistry extends AbstractLockRegistry {
 *     private MyLockRegistry(Builder builder, MyLockStore store) {
 *         super(builder, store);
 *     }
 *
 *     public static Builder builder(MyClient client) {
 *         return new Builder(client);
 *     }
 *
 *     public static final class Builder extends AbstractLockRegistry.StoreBuilder<Builder> {
 *         private final MyClient client;
 *
 *         private Builder(MyClient client) {
 *             super("mine", "locks:"); // the backend's name, its default key prefix
 *             this.client = client;
 *         }
 *
 *         public MyLockRegistry build() {
 *             validate(); // every shared setting, before anything opens
 *             return new MyLockRegistry(this, new MyLockStore(client, keyPrefix(), notifies(), lease().toMillis()));
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public abstract class AbstractLockRegistry implements LockRegistry, AutoCloseable {

    private final LockEngine engine;

    /**
     * A registry on {@code builder}'s settings, in front of {@code store}; {@code null} for a registry whose
     * memory is the whole truth (the in-memory backend).
     *
     * @throws IllegalArgumentException naming the setting of {@code builder} that is invalid
     */
    protected AbstractLockRegistry(Builder<?> builder, RemoteLockStore store) {
        this.engine = new LockEngine(builder.settings(), store);
    }

    @Override
    public final Lease acquire(Collection<String> keys) {
        return engine.acquire(keys, engine.defaultOptions());
    }

    @Override
    public final Lease acquire(Collection<String> keys, AcquireOptions options) {
        return engine.acquire(keys, options);
    }

    /**
     * {@inheritDoc}
     *
     * <p>With a remote store, each attempt is a blocking round trip, made on the registry's pool (at most
     * {@code max(4, 2 x cores)} threads, up to 16); the waits between attempts hold no thread. In memory the first
     * attempt runs on the calling thread (a few map operations) and the later ones on a pool of at most 4 threads.
     */
    @Override
    public final CompletableFuture<Lease> acquireAsync(Collection<String> keys, AcquireOptions options) {
        return engine.acquireAsync(keys, options);
    }

    /**
     * How many {@linkplain #acquireAsync asynchronous acquires} are pending now: started and neither taken nor
     * failed nor cancelled (for operations and tests: each is a callback and a timer task, not a thread).
     */
    public final int asyncAcquiresPending() {
        return engine.pendingAsync();
    }

    @Override
    public final Optional<Lease> tryAcquire(Collection<String> keys) {
        return engine.tryAcquire(keys);
    }

    @Override
    public final Optional<Lease> tryAcquire(Collection<String> keys, AcquireOptions options) {
        return engine.tryAcquire(keys, options);
    }

    /**
     * Takes every key at once if it can, under {@code options}' lock timeout, and never waits, for asynchronous
     * work: the lease, already {@linkplain Lease#detach() detached} (it re-enters no key the calling thread holds:
     * such a key counts as held), or {@code null} when a key is held (or goes first to a caller that has waited for
     * it longer), with nothing held. A blocked attempt is not counted as a timeout (the caller is expected to wait
     * on some other way, and that wait is counted). For a backend whose attempt needs no round trip, a caller that
     * must not block can take free keys on its own thread this way; with a remote store it is a round trip like
     * any attempt.
     *
     * @throws IllegalArgumentException as {@link #acquire(Collection, AcquireOptions)} for keys it refuses
     */
    protected final Lease attemptDetached(Collection<String> keys, AcquireOptions options) {
        return engine.attemptDetached(keys, options);
    }

    @Override
    public final <T> T withLocks(Collection<String> keys, Supplier<T> action) {
        return engine.withLocks(keys, action);
    }

    @Override
    public final AcquireOptions defaultOptions() {
        return engine.defaultOptions();
    }

    @Override
    public final List<HeldLock> heldLocks() {
        return engine.heldLocks();
    }

    @Override
    public final List<HeldLock> heldLocks(int limit) {
        return engine.heldLocks(limit);
    }

    @Override
    public final Optional<HeldLock> heldLock(String key) {
        return engine.heldLock(key);
    }

    @Override
    public final int heldCount() {
        return engine.heldCount();
    }

    /** This node's stale locks, in batches, without stopping acquirers; a backend may add its own cleanup. */
    @Override
    public int sweep() {
        return engine.sweep();
    }

    @Override
    public final boolean forceRelease(String key) {
        return engine.forceRelease(key);
    }

    @Override
    public final String backend() {
        return engine.backend();
    }

    /**
     * Stops the periodic sweep and the watchdog (and releases this node's locks in a remote store); later acquires
     * throw {@link IllegalStateException}.
     */
    @Override
    public void close() {
        engine.close();
    }

    /**
     * The settings every backend's registry builder has; each setter returns the concrete builder. A backend's
     * builder adds its own settings and a {@code build()} that calls its registry's constructor.
     *
     * @param <B> the concrete builder
     */
    public abstract static class Builder<B extends Builder<B>> {

        private final String backend;
        private AcquireOptions defaultOptions = AcquireOptions.defaults();
        private Duration cleanupInterval = Duration.ofMinutes(5);
        private int cleanupBatchSize = 100;
        private boolean watchdog;
        private LocksClock clock = LocksClock.system();
        private LocksObserver observer = LocksObserver.NONE;
        private int maxKeys = Keys.Limits.DEFAULT.maxKeys();
        private int maxKeyLength = Keys.Limits.DEFAULT.maxKeyLength();
        private String applicationName;
        private boolean coarseClock;

        /** A builder for the backend of short name {@code backend} ({@link LockRegistry#backend()}). */
        protected Builder(String backend) {
            this.backend = Objects.requireNonNull(backend, "backend");
        }

        /** The options of {@code acquire(keys)} and {@code withLocks}; default {@link AcquireOptions#defaults()}. */
        public B defaultOptions(AcquireOptions options) {
            this.defaultOptions = options;
            return self();
        }

        /** How often the registry sweeps by itself; {@link Duration#ZERO} for never. Default 5 minutes. */
        public B cleanupInterval(Duration interval) {
            this.cleanupInterval = interval;
            return self();
        }

        /** How many locks a sweep (or a listing, where the backend reads in batches) takes per batch; default 100. */
        public B cleanupBatchSize(int batchSize) {
            this.cleanupBatchSize = batchSize;
            return self();
        }

        /** Whether live owners' locks are renewed every third of their lock timeout; default false. */
        public B watchdog(boolean enabled) {
            this.watchdog = enabled;
            return self();
        }

        /** The time source; default {@link LocksClock#system()}. */
        public B clock(LocksClock clock) {
            this.clock = clock;
            return self();
        }

        /** Receives acquire, stale-removal, sweep and lost-lease events; default none. */
        public B observer(LocksObserver observer) {
            this.observer = observer;
            return self();
        }

        /**
         * How many distinct keys one acquire may take; default 1,000. A request for more is an
         * {@link IllegalArgumentException} before anything is locked, so that one bad request cannot stall a
         * shared server.
         */
        public B maxKeys(int maxKeys) {
            this.maxKeys = maxKeys;
            return self();
        }

        /**
         * How many characters a key may have; default 1,024. A longer key is an {@link IllegalArgumentException}
         * naming its position, before anything is locked.
         */
        public B maxKeyLength(int maxKeyLength) {
            this.maxKeyLength = maxKeyLength;
            return self();
        }

        /**
         * Lets a registry whose table is the whole truth (no {@link RemoteLockStore}), on {@link LocksClock#system()},
         * stamp an uncontended exclusive acquire with a shared coarse clock instead of reading the system clock:
         * the lease's expiry is judged up to a tick (2 ms) late, never early. Off unless a backend turns it on.
         */
        protected final void coarseClock(boolean allowed) {
            this.coarseClock = allowed;
        }

        /** The batch size set by {@link #cleanupBatchSize(int)}, for a backend's own batched work. */
        protected final int batchSize() {
            return cleanupBatchSize;
        }

        /**
         * Checks every setting of this class, for a backend's {@code build()} that opens resources: call it
         * before opening them.
         *
         * @throws IllegalArgumentException naming the setting that is invalid
         */
        protected final void validate() {
            settings();
        }

        /** The engine's settings; throws {@link IllegalArgumentException} naming the setting that is invalid. */
        final LockEngine.Settings settings() {
            return new LockEngine.Settings(backend, defaultOptions, cleanupInterval, cleanupBatchSize, watchdog,
                    clock, observer, new Keys.Limits(maxKeys, maxKeyLength), applicationName, coarseClock);
        }

        @SuppressWarnings("unchecked")
        B self() {
            return (B) this;
        }
    }

    /**
     * The settings every registry on a {@link RemoteLockStore} has besides those of {@link Builder}: the key
     * prefix, release notification and the lease of locks of infinite lock timeout. Each backend checks the
     * lease against its own minimum.
     *
     * @param <B> the concrete builder
     */
    public abstract static class StoreBuilder<B extends StoreBuilder<B>> extends Builder<B> {

        /** The default of {@link #lease(Duration)}. */
        public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

        private String keyPrefix;
        private boolean notify = true;
        private Duration lease = DEFAULT_LEASE;

        /** A builder for the backend of short name {@code backend}, whose default key prefix is {@code keyPrefix}. */
        protected StoreBuilder(String backend, String keyPrefix) {
            super(backend);
            this.keyPrefix = keyPrefix;
        }

        /**
         * The start of every key as stored, a namespace in the store; the backend's default. Keys the API shows
         * never carry it. Registries with different prefixes never see each other's locks.
         */
        public B keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return self();
        }

        /**
         * Whether waiters are woken by the store's release notifications (one subscription per node); default
         * true. Without them, waiters poll at their retry interval.
         */
        public B notify(boolean notify) {
            this.notify = notify;
            return self();
        }

        /**
         * The lease under which this node holds a lock of infinite lock timeout in the store, renewed every third
         * of it whether or not the watchdog is on; default 30 s. A crashed node's "infinite" locks free themselves
         * after it; the lease the caller sees never expires ({@link Lease#expiresAt()} is
         * {@link java.time.Instant#MAX}).
         */
        public B lease(Duration lease) {
            this.lease = lease;
            return self();
        }

        /**
         * The key prefix set.
         *
         * @throws IllegalArgumentException when it is {@code null}
         */
        protected final String keyPrefix() {
            if (keyPrefix == null) {
                throw new IllegalArgumentException("keyPrefix must not be null (\"\" for none)");
            }
            return keyPrefix;
        }

        /**
         * The application's name ({@code spring.application.name} under the starter), which the owner of each of
         * this node's locks names beside its host and process ({@link dev.locks.HeldLock#owner()}, as in
         * {@code "scheduling-1 @ report-service on web-3 (4242)"}), so that operations see which instance runs
         * a job; default none ({@code null} or blank: the host and process only).
         */
        public B applicationName(String applicationName) {
            super.applicationName = applicationName;
            return self();
        }

        /** Whether notification is on. */
        protected final boolean notifies() {
            return notify;
        }

        /** The lease set, unchecked: each backend checks it against its minimum. */
        protected final Duration lease() {
            return lease;
        }
    }
}
