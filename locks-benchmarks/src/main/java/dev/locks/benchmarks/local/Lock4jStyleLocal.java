package dev.locks.benchmarks.local;

import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.util.ConcurrentReferenceHashMap;

/**
 * The algorithm of lock4j's local executor ({@code com.baomidou.lock.executor.LocalLockExecutor}, on lock4j's main
 * branch; no release up to {@code lock4j-core} 2.2.7, the newest served, contains it), restated here so that the
 * same harness can run it without a Spring context:
 * <ul>
 *   <li>the locks live in Spring's {@code ConcurrentReferenceHashMap} with weak references, 32 initial entries;</li>
 *   <li>acquire: {@code compute} the key's lock, a new fair {@code ReentrantLock} with an expiry when there is
 *       none or the mapped one expired, then {@code tryLock} with the acquire timeout and reset the expiry from
 *       {@code System.currentTimeMillis()};</li>
 *   <li>release: if held by the caller, {@code computeIfPresent} removes the mapped lock when it is the caller's,
 *       its last hold, and nobody queues; then unlock.</li>
 * </ul>
 */
public final class Lock4jStyleLocal {

    private static final long NEVER = -1;

    private final ConcurrentMap<String, ExpiringLock> locks =
            new ConcurrentReferenceHashMap<>(32, ConcurrentReferenceHashMap.ReferenceType.WEAK);

    /** A fair lock with an expiry in wall-clock milliseconds ({@link #NEVER}: none). */
    public static final class ExpiringLock extends ReentrantLock {
        private long expiresMillis;

        ExpiringLock(long expireMillis) {
            super(true);
            this.expiresMillis = expireMillis;
        }

        boolean isExpired() {
            return expiresMillis != NEVER && System.currentTimeMillis() > expiresMillis;
        }

        void expireAfter(long expireMillis) {
            expiresMillis = expireMillis < 0 ? NEVER : System.currentTimeMillis() + expireMillis;
        }
    }

    /** The key's lock, held; {@code null} when the acquire timed out. */
    public ExpiringLock acquire(String key, long expireMillis, long acquireTimeoutMillis) {
        ExpiringLock lock = locks.compute(key,
                (k, current) -> current == null || current.isExpired() ? new ExpiringLock(expireMillis) : current);
        try {
            if (!lock.tryLock(acquireTimeoutMillis, TimeUnit.MILLISECONDS)) {
                return null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while acquiring " + key, e);
        }
        lock.expireAfter(expireMillis);
        return lock;
    }

    /** Whether the lock was released before it expired. */
    public boolean release(String key, ExpiringLock lock) {
        if (!lock.isHeldByCurrentThread()) {
            return false;
        }
        boolean expired = lock.isExpired();
        locks.computeIfPresent(key, (k, current) -> current != lock || current.getHoldCount() > 1
                || current.getQueueLength() > 0 ? current : null);
        lock.unlock();
        return !expired;
    }
}
