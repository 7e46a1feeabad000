package dev.locks.benchmarks.proto;

import dev.locks.Lease;
import dev.locks.local.LocalLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
 * Where the single-key cycle's time goes: today's engine (on the system clock, its uncontended acquires stamped
 * with the coarse clock of issue 24, {@code preciseClock(false)}; with the default precise clock; and on the
 * {@link CachedClock} prototype), the {@link FusedLeaseTable} prototype with and without its clock read and its fencing token, and
 * the {@code ConcurrentHashMap} floor, in one run. Use
 * {@code -prof gc} for the bytes per cycle.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ProtoSingleKey {

    private static final String KEY = "account:1000";

    private LocalLockRegistry registry;
    private LocalLockRegistry preciseRegistry;
    private CachedClock cachedClock;
    private LocalLockRegistry registryOnCachedClock;
    private FusedLeaseTable fused;
    private final ConcurrentHashMap<String, Thread> map = new ConcurrentHashMap<>();
    private final List<String> keys = List.of(KEY);
    private Thread self;

    @Setup
    public void setUp() {
        registry = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).preciseClock(false).build();
        preciseRegistry = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).preciseClock(true).build();
        cachedClock = new CachedClock();
        registryOnCachedClock = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).clock(cachedClock).build();
        fused = new FusedLeaseTable(Duration.ofSeconds(30).toNanos());
        self = Thread.currentThread();
    }

    @TearDown
    public void tearDown() {
        registry.close();
        preciseRegistry.close();
        registryOnCachedClock.close();
        cachedClock.close();
    }

    @Benchmark
    public long engineToday() {
        try (Lease lease = registry.acquire(keys)) {
            return lease.fencingToken();
        }
    }

    /** Today's engine reading {@code System.nanoTime()} on every acquire: the engine before issue 24. */
    @Benchmark
    public long enginePreciseClock() {
        try (Lease lease = preciseRegistry.acquire(keys)) {
            return lease.fencingToken();
        }
    }

    /** Today's engine on the {@link CachedClock} prototype: what the clock read costs the real path. */
    @Benchmark
    public long engineOnCachedClock() {
        try (Lease lease = registryOnCachedClock.acquire(keys)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public long fusedLease() {
        try (FusedLeaseTable.Entry lease = fused.acquire(KEY)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public long fusedLeaseWithoutClock() {
        try (FusedLeaseTable.Entry lease = fused.acquireWithoutClock(KEY)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public long fusedLeaseWithoutToken() {
        try (FusedLeaseTable.Entry lease = fused.acquireWithoutToken(KEY)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public boolean floor() {
        map.putIfAbsent(KEY, self);
        return map.remove(KEY, self);
    }

    /** What one {@code System.nanoTime()} costs here (TSC or not, the VM decides). */
    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}
