package dev.locks.benchmarks.jdbc;

import dev.locks.Lease;
import dev.locks.benchmarks.OneByOne;
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

/**
 * A lock cycle on PostgreSQL, 1 or 5 keys acquired together and released, as throughput (cycles per second, all
 * threads together). Each thread has keys of its own, so nobody waits for anybody: the cost is round trips and
 * transactions. This project takes all keys in one function call each way; Spring Integration and ShedLock have no
 * multi-key call, so their users take the keys one by one in sorted order and release them in reverse (ShedLock
 * rolls back what it took when a key is held). Run with 1 and 4 threads ({@code -t}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class JdbcLocks {

    @Param({"1", "5"})
    public int keyCount;

    /** One caller: its keys, sorted. */
    @State(Scope.Thread)
    public static class Caller {
        List<String> keys;
        String[] keyArray;

        @Setup
        public void setUp(ThreadParams thread, JdbcLocks benchmark) {
            List<String> mine = new ArrayList<>();
            for (int i = 0; i < benchmark.keyCount; i++) {
                mine.add("t" + thread.getThreadIndex() + ":account:" + (1000 + i));
            }
            keys = List.copyOf(mine);
            keyArray = mine.toArray(new String[0]);
            Arrays.sort(keyArray);
        }
    }

    @Benchmark
    public long thisProject(JdbcClients.ThisProject jdbc, Caller caller) {
        try (Lease lease = jdbc.registry.acquire(caller.keys)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public long thisProjectFourConnections(JdbcClients.ThisProjectFourConnections jdbc, Caller caller) {
        try (Lease lease = jdbc.registry.acquire(caller.keys)) {
            return lease.fencingToken();
        }
    }

    @Benchmark
    public int springIntegration(JdbcClients.SpringIntegration jdbc, Caller caller) {
        return OneByOne.lockAll(jdbc.registry::obtain, caller.keyArray);
    }

    @Benchmark
    public int shedLock(JdbcClients.ShedLock jdbc, Caller caller) {
        return OneByOne.shedLockAll(jdbc.provider, caller.keyArray, DatabasePool.LEASE);
    }
}
