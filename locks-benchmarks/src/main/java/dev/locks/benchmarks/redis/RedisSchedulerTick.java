package dev.locks.benchmarks.redis;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.benchmarks.SchedulerTicks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A scheduler tick on Redis (issue 20): one attempt at the job's lock, the job (empty) when it was taken, the
 * release; as throughput, all threads together. Each thread ticks a job of its own. On the run path
 * ({@code ...Run}) the job is free, so every tick takes, runs and releases it; on the skip path ({@code ...Skip})
 * another node holds every job for the whole trial, so every tick is one refused attempt. This project's
 * {@code tryAcquire(keys, options)} (what {@code @Locked(waitTime = "0", onTimeout = "skip")} calls under its
 * interceptor) beside ShedLock's {@code DefaultLockingTaskExecutor} on its {@code RedisLockProvider}, each with a
 * redis-server of its own. Run with 1 and 4 threads ({@code -t}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RedisSchedulerTick {

    /** This project's registry, and another node's on the same server, which holds nothing. */
    public static class ThisProject extends RedisClients.ThisProject {
        final AcquireOptions options = AcquireOptions.defaults().withLockTimeout(RedisClients.LEASE);
        LettuceConnectionFactory otherFactory;
        dev.locks.redis.RedisLockRegistry otherNode;
        final List<Lease> held = new ArrayList<>();

        @Override
        void open(RedisServerProcess server) {
            super.open(server);
            otherFactory = connectionFactory(server);
            otherNode = dev.locks.redis.RedisLockRegistry.builder(otherFactory).cleanupInterval(Duration.ZERO).build();
            if (holdsJobs()) {
                held.addAll(SchedulerTicks.holdAll(otherNode, options));
            }
        }

        boolean holdsJobs() {
            return false;
        }

        @Override
        void close() {
            held.forEach(Lease::close);
            otherNode.close();
            otherFactory.destroy();
            super.close();
        }
    }

    /** {@link ThisProject} where the other node holds every job for the trial. */
    public static class ThisProjectJobsHeld extends ThisProject {
        @Override
        boolean holdsJobs() {
            return true;
        }
    }

    /** ShedLock's executor on its provider. */
    public static class ShedLock extends RedisClients.ShedLock {
        LockingTaskExecutor executor;
        final List<SimpleLock> held = new ArrayList<>();

        @Override
        void open(RedisServerProcess server) {
            super.open(server);
            executor = new DefaultLockingTaskExecutor(provider);
            if (holdsJobs()) {
                held.addAll(SchedulerTicks.holdAll(provider, RedisClients.LEASE));
            }
        }

        boolean holdsJobs() {
            return false;
        }

        @Override
        void close() {
            held.forEach(SimpleLock::unlock);
            super.close();
        }
    }

    /** {@link ShedLock} holding every job for the trial, as another node would. */
    public static class ShedLockJobsHeld extends ShedLock {
        @Override
        boolean holdsJobs() {
            return true;
        }
    }

    @Benchmark
    public boolean thisProjectRun(ThisProject redis, SchedulerTicks.Job job) {
        return job.expect(SchedulerTicks.tick(redis.registry, redis.options, job), true);
    }

    @Benchmark
    public boolean thisProjectSkip(ThisProjectJobsHeld redis, SchedulerTicks.Job job) {
        return job.expect(SchedulerTicks.tick(redis.registry, redis.options, job), false);
    }

    @Benchmark
    public boolean shedLockRun(ShedLock redis, SchedulerTicks.Job job) throws Throwable {
        return job.expect(SchedulerTicks.tick(redis.executor, RedisClients.LEASE, job), true);
    }

    @Benchmark
    public boolean shedLockSkip(ShedLockJobsHeld redis, SchedulerTicks.Job job) throws Throwable {
        return job.expect(SchedulerTicks.tick(redis.executor, RedisClients.LEASE, job), false);
    }
}
