package dev.locks.spring.actuate;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockUnavailableException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

/**
 * A lock registry double for the operations tests: it shows whatever locks a test puts in it, and can act
 * as an unreachable backend. It takes no locks of its own.
 */
class StubLockRegistry implements LockRegistry {

    private final Map<String, HeldLock> held = new ConcurrentSkipListMap<>();

    private volatile boolean unreachable;

    StubLockRegistry with(HeldLock lock) {
        held.put(lock.key(), lock);
        return this;
    }

    /** From now on every call fails as a backend outage does. */
    StubLockRegistry unreachable() {
        unreachable = true;
        return this;
    }

    @Override
    public List<HeldLock> heldLocks() {
        if (unreachable) {
            throw new LockUnavailableException("stub backend unreachable", null);
        }
        return List.copyOf(held.values());
    }

    @Override
    public boolean forceRelease(String key) {
        return held.remove(key) != null;
    }

    @Override
    public String backend() {
        return "stub";
    }

    @Override
    public Lease acquire(Collection<String> keys) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Lease acquire(Collection<String> keys, AcquireOptions options) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Lease> tryAcquire(Collection<String> keys) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Lease> tryAcquire(Collection<String> keys, AcquireOptions options) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Collection<String> keys, AcquireOptions options) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <T> T withLocks(Collection<String> keys, Supplier<T> action) {
        throw new UnsupportedOperationException();
    }

    @Override
    public AcquireOptions defaultOptions() {
        return AcquireOptions.defaults();
    }

    @Override
    public int sweep() {
        return 0;
    }
}
