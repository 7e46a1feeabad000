package dev.locks.benchmarks.local;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.local.LocalLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 25: one key taken shared (a read lock) and released by every thread at once, nothing done under it: this
 * project's shared acquire against {@code ReentrantReadWriteLock.readLock()} (one lock, no key), and a counted
 * acquire (8 permits, more than the threads: nobody waits). Run with 1 and 4 threads ({@code -t}); the target is
 * a shared cycle within 2x the read lock's.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class LocalSharedLocks {

    private static final List<String> KEY = List.of("config");
    private static final AcquireOptions SHARED = AcquireOptions.defaults().shared();
    private static final AcquireOptions PERMITS = AcquireOptions.defaults().withPermits(8);

    LocalLockRegistry registry;
    final ReentrantReadWriteLock readWrite = new ReentrantReadWriteLock();

    @Setup
    public void setUp() {
        registry = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).build();
    }

    @TearDown
    public void tearDown() {
        registry.close();
    }

    @Benchmark
    public Lease thisProjectShared() {
        Lease lease = registry.acquire(KEY, SHARED);
        lease.close();
        return lease;
    }

    @Benchmark
    public Lease thisProjectPermits() {
        Lease lease = registry.acquire(KEY, PERMITS);
        lease.close();
        return lease;
    }

    @Benchmark
    public Lock reentrantReadWriteLockReadLock() {
        return LocalLocks.cycle(readWrite.readLock());
    }
}
