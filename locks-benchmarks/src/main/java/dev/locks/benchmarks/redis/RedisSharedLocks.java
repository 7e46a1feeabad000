package dev.locks.benchmarks.redis;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;

/**
 * Issue 25 on Redis: one key taken shared (a read lock) or as one of 8 permits, and released, by every thread at
 * once (nobody waits: 8 permits, at most 4 threads), as throughput (cycles per second, all threads together).
 * This project's shared acquire against Redisson's {@code RReadWriteLock.readLock()}, its counted acquire against
 * Redisson's {@code RPermitExpirableSemaphore} (each permit a lease, as ours; its plain {@code RSemaphore} leaks
 * the permits of a JVM that dies). Leases of 30 s everywhere. Run with 1 and 4 threads ({@code -t}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RedisSharedLocks {

    private static final List<String> CONFIG = List.of("config");
    private static final List<String> TENANT = List.of("tenant:7");
    private static final AcquireOptions SHARED = AcquireOptions.defaults().shared();
    private static final AcquireOptions PERMITS = AcquireOptions.defaults().withPermits(8);

    /** Redisson with its defaults, and the semaphore's 8 permits set once. */
    @State(Scope.Benchmark)
    public static class Redisson {
        RLock readLock;
        RPermitExpirableSemaphore semaphore;

        @Setup
        public void setUp(RedisClients.RedissonState redis) {
            readLock = redis.client.getReadWriteLock("config").readLock();
            semaphore = redis.client.getPermitExpirableSemaphore("tenant:7");
            semaphore.trySetPermits(8);
        }
    }

    @Benchmark
    public long thisProjectShared(RedisClients.ThisProject redis) {
        try (Lease lease = redis.registry.acquire(CONFIG, SHARED)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public long thisProjectPermits(RedisClients.ThisProject redis) {
        try (Lease lease = redis.registry.acquire(TENANT, PERMITS)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public boolean redissonReadLock(Redisson redisson) {
        redisson.readLock.lock(RedisClients.LEASE.toMillis(), TimeUnit.MILLISECONDS);
        redisson.readLock.unlock();
        return true;
    }

    @Benchmark
    public String redissonPermitExpirableSemaphore(Redisson redisson) throws InterruptedException {
        String permit = redisson.semaphore.acquire(RedisClients.LEASE.toMillis(), TimeUnit.MILLISECONDS);
        redisson.semaphore.release(permit);
        return permit;
    }
}
