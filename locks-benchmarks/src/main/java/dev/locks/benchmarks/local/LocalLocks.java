package dev.locks.benchmarks.local;

import com.google.common.util.concurrent.Striped;
import dev.locks.local.LocalLockRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.integration.support.locks.DefaultLockRegistry;

/**
 * The keyed locks of the local benchmarks, one of each per trial, shared by the benchmark's threads: this
 * project's registry (defaults, no sweeper thread), Spring Integration's {@code DefaultLockRegistry} and Guava's
 * {@code Striped} (both 256 locks), two per-key rivals (lock4j's local executor, and a map of
 * {@code ReentrantLock}s by hand), and the floor's map.
 */
@State(Scope.Benchmark)
public class LocalLocks {

    LocalLockRegistry registry;
    DefaultLockRegistry defaultLockRegistry;
    Striped<Lock> striped;
    ConcurrentHashMap<String, Thread> map;
    Lock4jStyleLocal lock4j;
    MapOfReentrantLocks mapOfLocks;

    @Setup
    public void setUp() {
        registry = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).build();
        defaultLockRegistry = new DefaultLockRegistry();
        striped = Striped.lock(256);
        map = new ConcurrentHashMap<>();
        lock4j = new Lock4jStyleLocal();
        mapOfLocks = new MapOfReentrantLocks();
    }

    @TearDown
    public void tearDown() {
        registry.close();
    }

    /** One cycle of a plain lock. */
    static Lock cycle(Lock lock) {
        lock.lock();
        lock.unlock();
        return lock;
    }

    /** The floor's cycle: {@code putIfAbsent} the key for its thread, then remove it. */
    boolean floorCycle(String key, Thread self) {
        if (map.putIfAbsent(key, self) != null) {
            throw new IllegalStateException("the floor's key is held: " + key);
        }
        return map.remove(key, self);
    }
}
