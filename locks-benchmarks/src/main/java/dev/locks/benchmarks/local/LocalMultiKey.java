package dev.locks.benchmarks.local;

import dev.locks.Lease;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Several keys acquired all-or-nothing and released. Every implementation gets the same list of keys in a
 * shuffled order and has to bring them into one global order itself (else two callers could deadlock):
 * <ul>
 *   <li>the floor sorts a copy and {@code putIfAbsent}s in that order, rolling back on a failure;</li>
 *   <li>Guava's {@code Striped.bulkGet} returns its stripes in ascending order (Guava's own answer);</li>
 *   <li>Spring Integration's {@code DefaultLockRegistry} has no multi-key call: the keys are ordered by the
 *       stripe they fall on ({@code hashCode() & 0xFF}, its own mapping), and locked one by one.</li>
 * </ul>
 * Each thread has keys of its own ({@code -t 2}: nobody waits, except where two stripes alias).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class LocalMultiKey {

    /** Spring Integration's default: 256 locks, a key's lock is {@code hashCode() & 0xFF}. */
    private static final Comparator<String> BY_DEFAULT_REGISTRY_STRIPE =
            Comparator.comparingInt(key -> key.hashCode() & 0xFF);

    @Param({"2", "8"})
    public int keyCount;

    /** One caller and its keys, in a shuffled order. */
    @State(Scope.Thread)
    public static class Caller {
        List<String> keys;
        Thread self;

        @Setup
        public void setUp(ThreadParams thread, LocalMultiKey benchmark) {
            List<String> mine = new ArrayList<>();
            for (int i = 0; i < benchmark.keyCount; i++) {
                mine.add("t" + thread.getThreadIndex() + ":account:" + (1000 + i));
            }
            Collections.shuffle(mine, new Random(42));
            keys = List.copyOf(mine);
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
    public int guavaStriped(LocalLocks locks, Caller caller) {
        List<Lock> stripes = (List<Lock>) locks.striped.bulkGet(caller.keys);
        for (Lock lock : stripes) {
            lock.lock();
        }
        for (int i = stripes.size() - 1; i >= 0; i--) {
            stripes.get(i).unlock();
        }
        return stripes.size();
    }

    @Benchmark
    public int springDefaultLockRegistry(LocalLocks locks, Caller caller) {
        String[] keys = caller.keys.toArray(new String[0]);
        Arrays.sort(keys, BY_DEFAULT_REGISTRY_STRIPE);
        Lock[] taken = new Lock[keys.length];
        for (int i = 0; i < keys.length; i++) {
            taken[i] = locks.defaultLockRegistry.obtain(keys[i]);
            taken[i].lock();
        }
        for (int i = taken.length - 1; i >= 0; i--) {
            taken[i].unlock();
        }
        return taken.length;
    }

    @Benchmark
    public int floorConcurrentHashMap(LocalLocks locks, Caller caller) {
        String[] keys = caller.keys.toArray(new String[0]);
        Arrays.sort(keys);
        Thread self = caller.self;
        for (int i = 0; i < keys.length; i++) {
            if (locks.map.putIfAbsent(keys[i], self) != null) {
                for (int j = i - 1; j >= 0; j--) {
                    locks.map.remove(keys[j], self);
                }
                throw new IllegalStateException("the floor's key is held: " + keys[i]);
            }
        }
        for (String key : keys) {
            locks.map.remove(key, self);
        }
        return keys.length;
    }
}
