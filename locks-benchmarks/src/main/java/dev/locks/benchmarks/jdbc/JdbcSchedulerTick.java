package dev.locks.benchmarks.jdbc;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.benchmarks.SchedulerTicks;
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

/**
 * A scheduler tick on PostgreSQL (issue 20), as {@code RedisSchedulerTick} on Redis: one attempt at the job's lock,
 * the (empty) job when it was taken, the release; a job per thread, free on the run path ({@code ...Run}) and held
 * by another node for the whole trial on the skip path ({@code ...Skip}). This project's {@code tryAcquire(keys,
 * options)} beside ShedLock's {@code DefaultLockingTaskExecutor} on its {@code JdbcTemplateLockProvider} (database
 * time), each on a server and pool of its own ({@link DatabasePool}). Run with 1 and 4 threads ({@code -t}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class JdbcSchedulerTick {

    /** This project's registry, and another node's on the same database, which holds nothing. */
    public static class ThisProject extends JdbcClients.ThisProject {
        final AcquireOptions options = AcquireOptions.defaults().withLockTimeout(DatabasePool.LEASE);
        dev.locks.jdbc.JdbcLockRegistry otherNode;
        final List<Lease> held = new ArrayList<>();

        @Override
        void open(DatabasePool postgres) {
            super.open(postgres);
            otherNode = postgres.thisProject(true);
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
    public static class ShedLock extends JdbcClients.ShedLock {
        LockingTaskExecutor executor;
        final List<SimpleLock> held = new ArrayList<>();

        @Override
        void open(DatabasePool postgres) {
            super.open(postgres);
            executor = new DefaultLockingTaskExecutor(provider);
            if (holdsJobs()) {
                held.addAll(SchedulerTicks.holdAll(provider, DatabasePool.LEASE));
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
    public boolean thisProjectRun(ThisProject jdbc, SchedulerTicks.Job job) {
        return job.expect(SchedulerTicks.tick(jdbc.registry, jdbc.options, job), true);
    }

    @Benchmark
    public boolean thisProjectSkip(ThisProjectJobsHeld jdbc, SchedulerTicks.Job job) {
        return job.expect(SchedulerTicks.tick(jdbc.registry, jdbc.options, job), false);
    }

    @Benchmark
    public boolean shedLockRun(ShedLock jdbc, SchedulerTicks.Job job) throws Throwable {
        return job.expect(SchedulerTicks.tick(jdbc.executor, DatabasePool.LEASE, job), true);
    }

    @Benchmark
    public boolean shedLockSkip(ShedLockJobsHeld jdbc, SchedulerTicks.Job job) throws Throwable {
        return job.expect(SchedulerTicks.tick(jdbc.executor, DatabasePool.LEASE, job), false);
    }
}
