package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.spi.RemoteLockStore;
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
}
