package dev.locks.benchmarks.local;

import dev.locks.Lease;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Two threads, each cycling through 4,096 keys of its own in a pseudo-random order: the keys never conflict,
 * but {@code DefaultLockRegistry} and {@code Striped} map them onto 256 locks, so now and then the two threads
 * meet on one lock and one waits for the other. This is the other side of their per-call speed in
 * {@link LocalSingleKey}; the table maps keys one to one, as the floor does.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(2)
public class LocalSpreadKeys {

    static final int KEYS_PER_THREAD = 4096;

    /** One caller: its own keys (as strings and as one-key lists) and a cheap pseudo-random walk over them. */
    @State(Scope.Thread)
    public static class Caller {
        String[] keys;
        List<String>[] keyLists;
        Thread self;
        private int next;

        @Setup
        @SuppressWarnings("unchecked")
        public void setUp(ThreadParams thread) {
            keys = new String[KEYS_PER_THREAD];
            keyLists = new List[KEYS_PER_THREAD];
            for (int i = 0; i < KEYS_PER_THREAD; i++) {
                keys[i] = "t" + thread.getThreadIndex() + ":account:" + i;
                keyLists[i] = List.of(keys[i]);
            }
            self = Thread.currentThread();
            next = thread.getThreadIndex() * 7919;
        }

        /** The next key's index: the top bits of a Weyl sequence, every key about equally often, scattered. */
        int nextIndex() {
            next += 0x9E3779B9;
            return next >>> 20;
        }
    }

    @Benchmark
    public Lease thisProject(LocalLocks locks, Caller caller) {
        Lease lease = locks.registry.acquire(caller.keyLists[caller.nextIndex()]);
        lease.close();
        return lease;
    }

    @Benchmark
    public Lock springDefaultLockRegistry(LocalLocks locks, Caller caller) {
        return LocalLocks.cycle(locks.defaultLockRegistry.obtain(caller.keys[caller.nextIndex()]));
    }

    @Benchmark
    public Lock guavaStriped(LocalLocks locks, Caller caller) {
        return LocalLocks.cycle(locks.striped.get(caller.keys[caller.nextIndex()]));
    }

    @Benchmark
    public boolean floorConcurrentHashMap(LocalLocks locks, Caller caller) {
        return locks.floorCycle(caller.keys[caller.nextIndex()], caller.self);
    }
}
