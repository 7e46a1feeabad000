package dev.locks.benchmarks.proto;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Prototype of the stampede's fan-out as today's {@code Flight} does it, and nothing else: waiters park on a
 * {@link Condition} of the flight's lock, and the computer's {@code signalAll} moves them to the lock's queue,
 * so each must take the lock again, one after the other, before it returns. Beside the floor (a
 * {@code CompletableFuture}, whose waiters are unparked at once and return without a lock) it shows what that
 * serial re-locking costs a thousand waiters. No value store, timeouts or promotion.
 */
public final class ConditionFlight {

    private final ConcurrentHashMap<String, Miss> misses = new ConcurrentHashMap<>();

    /** The value of {@code key}, computed once by the first caller of a miss. */
    public Object get(String key, Function<String, Object> compute) {
        Miss mine = new Miss();
        Miss theirs = misses.putIfAbsent(key, mine);
        if (theirs != null) {
            return theirs.await();
        }
        Object value = compute.apply(key);
        mine.settle(value);
        return value;
    }

    private static final class Miss {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition settled = lock.newCondition();
        private Object value;

        Object await() {
            lock.lock();
            try {
                while (value == null) {
                    settled.awaitUninterruptibly();
                }
                return value;
            } finally {
                lock.unlock();
            }
        }

        void settle(Object result) {
            lock.lock();
            try {
                value = result;
                settled.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
