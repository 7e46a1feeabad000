package dev.locks.benchmarks.handoff;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.local.LocalLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/** A lock on one key that two threads pass to each other: {@link #lock()} returns what {@link #unlock} needs. */
interface Contender extends AutoCloseable {

    String KEY = "account:1";

    Object lock() throws InterruptedException;

    void unlock(Object handle);

    @Override
    default void close() {
    }

    /** This project: a waiter parks and is woken by the release; the retry interval (10 ms) is the fallback. */
    static Contender thisProject() {
        LocalLockRegistry registry = LocalLockRegistry.builder()
                .defaultOptions(AcquireOptions.defaults().withInfiniteRetries())
                .cleanupInterval(Duration.ZERO)
                .build();
        List<String> keys = List.of(KEY);
        return new Contender() {
            @Override
            public Object lock() {
                return registry.acquire(keys);
            }

            @Override
            public void unlock(Object handle) {
                ((Lease) handle).close();
            }

            @Override
            public void close() {
                registry.close();
            }
        };
    }

    /** The JDK's lock: a waiter queues and is unparked by the release. */
    static Contender reentrantLock() {
        ReentrantLock lock = new ReentrantLock();
        return new Contender() {
            @Override
            public Object lock() {
                lock.lock();
                return lock;
            }

            @Override
            public void unlock(Object handle) {
                lock.unlock();
            }
        };
    }

    /** The seed's design: a waiter sleeps 11 to 20 ms between attempts. */
    static Contender seedDesign() {
        SeedPollingLock lock = new SeedPollingLock();
        return new Contender() {
            @Override
            public Object lock() throws InterruptedException {
                lock.lock(KEY);
                return lock;
            }

            @Override
            public void unlock(Object handle) {
                lock.unlock(KEY);
            }
        };
    }
}
