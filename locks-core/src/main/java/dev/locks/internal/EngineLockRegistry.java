package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.spi.RemoteLockStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A {@link LockRegistry} that is a {@link LockEngine}: the base of every backend's registry, which only
 * chooses the engine's settings and its store. Not an API.
 */
public abstract class EngineLockRegistry implements LockRegistry, AutoCloseable {

    private final LockEngine engine;

    protected EngineLockRegistry(LockEngine.Settings settings, RemoteLockStore store) {
        this.engine = new LockEngine(settings, store);
    }

    @Override
    public Lease acquire(Collection<String> keys) {
        return engine.acquire(keys, engine.defaultOptions());
    }

    @Override
    public Lease acquire(Collection<String> keys, AcquireOptions options) {
        return engine.acquire(keys, options);
    }

    @Override
    public Optional<Lease> tryAcquire(Collection<String> keys) {
        return engine.tryAcquire(keys);
    }

    @Override
    public <T> T withLocks(Collection<String> keys, Supplier<T> action) {
        return engine.withLocks(keys, action);
    }

    @Override
    public AcquireOptions defaultOptions() {
        return engine.defaultOptions();
    }

    @Override
    public List<HeldLock> heldLocks() {
        return engine.heldLocks();
    }

    @Override
    public List<HeldLock> heldLocks(int limit) {
        return engine.heldLocks(limit);
    }

    @Override
    public Optional<HeldLock> heldLock(String key) {
        return engine.heldLock(key);
    }

    @Override
    public int heldCount() {
        return engine.heldCount();
    }

    @Override
    public int sweep() {
        return engine.sweep();
    }

    @Override
    public boolean forceRelease(String key) {
        return engine.forceRelease(key);
    }

    @Override
    public String backend() {
        return engine.backend();
    }

    /** Stops the periodic sweep and the watchdog (and releases this node's locks in a remote store). */
    @Override
    public void close() {
        engine.close();
    }

    /** Runs one watchdog pass now (tests). */
    protected void renewNow() {
        engine.renewNow();
    }

    /**
     * The settings every backend's registry builder has; each {@code with}-style setter returns the concrete
     * builder.
     *
     * @param <B> the concrete builder
     */
    public abstract static class Builder<B extends Builder<B>> {

        private AcquireOptions defaultOptions = AcquireOptions.defaults();
        private Duration cleanupInterval = Duration.ofMinutes(5);
        private int cleanupBatchSize = 100;
        private boolean watchdog;
        private LocksClock clock = LocksClock.system();
        private LocksObserver observer = LocksObserver.NONE;
        private int maxKeys = Keys.Limits.DEFAULT.maxKeys();
        private int maxKeyLength = Keys.Limits.DEFAULT.maxKeyLength();

        protected Builder() {
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
         * The engine's settings for the backend named {@code backend}.
         *
         * @throws IllegalArgumentException naming the setting that is invalid
         */
        protected LockEngine.Settings settings(String backend) {
            return new LockEngine.Settings(backend, defaultOptions, cleanupInterval, cleanupBatchSize, watchdog,
                    clock, observer, new Keys.Limits(maxKeys, maxKeyLength));
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }
    }
}
