package dev.locks.spring;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.local.LocalLockRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The real in-memory registry, recording the options it is asked to acquire with and counting sweeps: for
 * tests of what the starter passes to its registry.
 */
public final class RecordingLockRegistry implements LockRegistry, AutoCloseable {

    private final LocalLockRegistry delegate;

    private final List<AcquireOptions> options = new CopyOnWriteArrayList<>();

    private final AtomicInteger sweeps = new AtomicInteger();

    public RecordingLockRegistry() {
        this(AcquireOptions.defaults().withRetries(0));
    }

    public RecordingLockRegistry(AcquireOptions defaults) {
        this.delegate = LocalLockRegistry.builder().defaultOptions(defaults).cleanupInterval(Duration.ZERO).build();
    }

    /** The options of every acquire so far, in order. */
    public List<AcquireOptions> options() {
        return options;
    }

    /** How many sweeps ran so far. */
    public int sweeps() {
        return sweeps.get();
    }

    @Override
    public Lease acquire(Collection<String> keys) {
        return acquire(keys, defaultOptions());
    }

    @Override
    public Lease acquire(Collection<String> keys, AcquireOptions options) {
        this.options.add(options);
        return delegate.acquire(keys, options);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Collection<String> keys, AcquireOptions options) {
        this.options.add(options);
        return delegate.acquireAsync(keys, options);
    }

    @Override
    public Optional<Lease> tryAcquire(Collection<String> keys) {
        return delegate.tryAcquire(keys);
    }

    @Override
    public Optional<Lease> tryAcquire(Collection<String> keys, AcquireOptions options) {
        this.options.add(options);
        return delegate.tryAcquire(keys, options);
    }

    @Override
    public <T> T withLocks(Collection<String> keys, Supplier<T> action) {
        return delegate.withLocks(keys, action);
    }

    @Override
    public AcquireOptions defaultOptions() {
        return delegate.defaultOptions();
    }

    @Override
    public List<HeldLock> heldLocks() {
        return delegate.heldLocks();
    }

    @Override
    public int sweep() {
        sweeps.incrementAndGet();
        return delegate.sweep();
    }

    @Override
    public String backend() {
        return "recording";
    }

    @Override
    public void close() {
        delegate.close();
    }
}
