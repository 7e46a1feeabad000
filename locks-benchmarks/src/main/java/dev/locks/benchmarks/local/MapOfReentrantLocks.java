package dev.locks.benchmarks.local;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The per-key lock users write by hand: a {@code ConcurrentHashMap<String, ReentrantLock>}, a lock created on
 * first use, and removed on unlock when nobody else queues for it, so that the map does not grow forever.
 *
 * <p>Written as it is usually written, race included: a caller that got the lock from the map but has not
 * queued yet when the holder removes it locks a lock that is no longer mapped, and a third caller then creates a
 * second lock for the same key. A correct version costs more (a compute per cycle, or a retry after locking), so
 * this rival is the faster one to beat.
 */
final class MapOfReentrantLocks {

    private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();

    ReentrantLock lock(String key) {
        ReentrantLock lock = locks.computeIfAbsent(key, k -> new ReentrantLock());
        lock.lock();
        return lock;
    }

    void unlock(String key, ReentrantLock lock) {
        lock.unlock();
        if (!lock.isLocked() && !lock.hasQueuedThreads()) {
            locks.remove(key, lock);
        }
    }
}
