package dev.locks.local;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** The in-memory lock registry. (Work in progress: the implementation lands next.) */
public final class LocalLockRegistry implements LockRegistry, AutoCloseable {

    private LocalLockRegistry(Builder builder) {
    }

    public LocalLockRegistry() {
        this(builder());
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Lease acquire(Collection<String> keys) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public Lease acquire(Collection<String> keys, AcquireOptions options) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public Optional<Lease> tryAcquire(Collection<String> keys) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public <T> T withLocks(Collection<String> keys, Supplier<T> action) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public AcquireOptions defaultOptions() {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public List<HeldLock> heldLocks() {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public int sweep() {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public void close() {
    }

    /** Builds a {@link LocalLockRegistry}. */
    public static final class Builder {
        public Builder defaultOptions(AcquireOptions options) { return this; }
        public Builder cleanupInterval(Duration interval) { return this; }
        public Builder cleanupBatchSize(int batchSize) { return this; }
        public Builder watchdog(boolean enabled) { return this; }
        public Builder clock(LocksClock clock) { return this; }
        public Builder observer(LocksObserver observer) { return this; }
        public LocalLockRegistry build() { return new LocalLockRegistry(this); }
    }
}
