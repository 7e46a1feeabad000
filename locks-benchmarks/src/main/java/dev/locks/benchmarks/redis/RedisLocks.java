package dev.locks.benchmarks.redis;

import dev.locks.Lease;
import dev.locks.benchmarks.OneByOne;
import io.lettuce.core.SetArgs;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
import org.redisson.api.RLock;

/**
 * A lock cycle on Redis, 1 or 5 keys acquired together and released, as throughput (cycles per second, all
 * threads together). Each thread has keys of its own, so nobody waits for anybody: the cost is round trips and
 * what each client does around them. With 5 keys, the libraries without a multi-key call take them one by one in
 * sorted order (and release them in reverse); Redisson has {@code RedissonMultiLock}. Run with 1 and 4 threads
 * ({@code -t}). Five warm-up iterations: the clients' I/O paths (Netty, Lettuce, Redisson) keep speeding up
 * for several seconds.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RedisLocks {

    @Param({"1", "5"})
    public int keyCount;

    /** One caller: its keys (sorted), and a counter for unique tokens. */
    @State(Scope.Thread)
    public static class Caller {
        List<String> keys;
        String[] keyArray;
        String tokenPrefix;
        long cycles;

        @Setup
        public void setUp(ThreadParams thread, RedisLocks benchmark) {
            List<String> mine = new ArrayList<>();
            for (int i = 0; i < benchmark.keyCount; i++) {
                mine.add("t" + thread.getThreadIndex() + ":account:" + (1000 + i));
            }
            keys = List.copyOf(mine);
            keyArray = mine.toArray(new String[0]);
            Arrays.sort(keyArray);
            tokenPrefix = "bench-" + thread.getThreadIndex() + "-";
        }

        String nextToken() {
            return tokenPrefix + cycles++;
        }
    }

    @Benchmark
    public long thisProject(RedisClients.ThisProject redis, Caller caller) {
        try (Lease lease = redis.registry.acquire(caller.keys)) {
            return lease.fencingToken();
        }
    }

    /** This project on a connection of the factory per call (Jedis's path; Lettuce's before issue 24). */
    @Benchmark
    public long thisProjectViaFactory(RedisClients.ThisProjectViaFactory redis, Caller caller) {
        try (Lease lease = redis.registry.acquire(caller.keys)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public long thisProjectPolling(RedisClients.ThisProjectPolling redis, Caller caller) {
        try (Lease lease = redis.registry.acquire(caller.keys)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public int springIntegrationSpin(RedisClients.SpringIntegrationSpin redis, Caller caller) {
        return OneByOne.lockAll(redis.registry::obtain, caller.keyArray);
    }

    @Benchmark
    public int springIntegrationPubSub(RedisClients.SpringIntegrationPubSub redis, Caller caller) {
        return OneByOne.lockAll(redis.registry::obtain, caller.keyArray);
    }

    @Benchmark
    public boolean redisson(RedisClients.RedissonState redis, Caller caller) {
        RLock lock;
        if (caller.keyArray.length == 1) {
            lock = redis.client.getLock(caller.keyArray[0]);
        } else {
            RLock[] locks = new RLock[caller.keyArray.length];
            for (int i = 0; i < locks.length; i++) {
                locks[i] = redis.client.getLock(caller.keyArray[i]);
            }
            lock = redis.client.getMultiLock(locks);
        }
        lock.lock(RedisClients.LEASE.toMillis(), TimeUnit.MILLISECONDS);
        lock.unlock();
        return true;
    }

    @Benchmark
    public int shedLock(RedisClients.ShedLock redis, Caller caller) {
        return OneByOne.shedLockAll(redis.provider, caller.keyArray, RedisClients.LEASE);
    }

    @Benchmark
    public long floorLettuce(RedisClients.Floor redis, Caller caller) {
        String token = caller.nextToken();
        if (caller.keyArray.length == 1) {
            String key = caller.keyArray[0];
            String set = redis.commands.set(key, token, SetArgs.Builder.nx().px(RedisClients.LEASE.toMillis()));
            if (!"OK".equals(set)) {
                throw new IllegalStateException("the floor did not get " + key);
            }
        } else if (!redis.setAll(caller.keyArray, token)) {
            throw new IllegalStateException("the floor did not get " + caller.keys);
        }
        return redis.deleteOwn(caller.keyArray, token);
    }
}
