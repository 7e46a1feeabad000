package dev.locks.internal;

import dev.locks.spi.RemoteLockStore;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A store that passes every call to {@code node} (a node of the in-memory server), for tests whose stores change one
 * or two calls: record them, fail them, place tickets.
 */
abstract class DelegatingLockStore implements RemoteLockStore {

    final RemoteLockStore node;

    DelegatingLockStore(RemoteLockStore node) {
        this.node = node;
    }

    @Override
    public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis) {
        return node.tryAcquire(keys, owner, leaseMillis);
    }

    @Override
    public Set<String> release(List<Ownership> keys) {
        return node.release(keys);
    }

    @Override
    public Set<String> renew(List<Ownership> keys) {
        return node.renew(keys);
    }

    @Override
    public List<RemoteLock> scan(int batchSize) {
        return node.scan(batchSize);
    }

    @Override
    public RemoteLock get(String key) {
        return node.get(key);
    }

    @Override
    public boolean forceRelease(String key) {
        return node.forceRelease(key);
    }

    @Override
    public boolean subscribe(Consumer<String> released, Runnable missed) {
        return node.subscribe(released, missed);
    }

    @Override
    public void close() {
        node.close();
    }
}
