package dev.locks.benchmarks.local;

import dev.locks.Lease;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * One key acquired and released, nothing done under it: this project against {@code ReentrantLock} (no key
 * at all), Spring Integration's {@code DefaultLockRegistry} and Guava's {@code Striped} (both alias every key
 * onto one of 256 locks), the per-key rivals (lock4j's local executor, {@link Lock4jStyleLocal}, with lock4j's
 * default 30 s expiry and 3 s acquire timeout; a {@code ConcurrentHashMap<String, ReentrantLock>} with removal,
 * {@link MapOfReentrantLocks}), and the floor, a {@code ConcurrentHashMap} {@code putIfAbsent} + {@code remove}
 * pair: the least a lock table with one entry per key can do.
 *
 * <p>Each thread has a key of its own, so with two threads ({@code -t 2}) nobody waits: what is measured is
 * the cost of state the threads share (the map's size counter, the fencing-token stripes). Waiting is
 * measured by {@link dev.locks.benchmarks.handoff.HandOff}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LocalSingleKey {

    /** One caller: its key, and what a caller keeps ready (the key as a list; its own lock). */
    @State(Scope.Thread)
    public static class Caller {
        String key;
        List<String> keys;
        Thread self;
        final ReentrantLock lock = new ReentrantLock();

        @Setup
        public void setUp(ThreadParams thread) {
            key = "account:" + (1000 + thread.getThreadIndex());
            keys = List.of(key);
            self = Thread.currentThread();
        }
    }

    @Benchmark
    public Lease thisProject(LocalLocks locks, Caller caller) {
        Lease lease = locks.registry.acquire(caller.keys);
        lease.close();
        return lease;
    }

    @Benchmark
    public Lock reentrantLock(Caller caller) {
        return LocalLocks.cycle(caller.lock);
    }

    @Benchmark
    public Lock springDefaultLockRegistry(LocalLocks locks, Caller caller) {
        return LocalLocks.cycle(locks.defaultLockRegistry.obtain(caller.key));
    }

    @Benchmark
    public Lock guavaStriped(LocalLocks locks, Caller caller) {
        return LocalLocks.cycle(locks.striped.get(caller.key));
    }

    @Benchmark
    public boolean lock4jLocal(LocalLocks locks, Caller caller) {
        return locks.lock4j.release(caller.key, locks.lock4j.acquire(caller.key, 30_000, 3_000));
    }

    @Benchmark
    public Lock mapOfReentrantLocks(LocalLocks locks, Caller caller) {
        ReentrantLock lock = locks.mapOfLocks.lock(caller.key);
        locks.mapOfLocks.unlock(caller.key, lock);
        return lock;
    }

    @Benchmark
    public boolean floorConcurrentHashMap(LocalLocks locks, Caller caller) {
        return locks.floorCycle(caller.key, caller.self);
    }
}
