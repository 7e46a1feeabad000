package dev.locks.benchmarks;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * What the scheduler-tick benchmarks of every backend share: a job per thread ({@code job:0}, {@code job:1}, ...),
 * and holding them all elsewhere for the skip path.
 */
public final class SchedulerTicks {

    /** The jobs of up to 8 threads. */
    public static final List<String> JOBS = IntStream.range(0, 8).mapToObj(i -> "job:" + i).toList();

    private SchedulerTicks() {
    }

    /** This project's tick: one attempt ({@code tryAcquire}), the job if taken, the release; whether it ran. */
    public static boolean tick(LockRegistry registry, AcquireOptions options, Job job) {
        Optional<Lease> lease = registry.tryAcquire(job.keys, options);
        if (lease.isEmpty()) {
            return false;
        }
        try (Lease run = lease.get()) {
            job.run();
        }
        return true;
    }

    /** ShedLock's tick: its executor's one attempt, the job if taken, the release; whether it ran. */
    public static boolean tick(LockingTaskExecutor executor, Duration lease, Job job) throws Throwable {
        LockingTaskExecutor.TaskWithResult<Boolean> task = job::call;
        return executor.executeWithLock(task, job.shedLockConfiguration(lease)).wasExecuted();
    }

    /** Takes every job with {@code otherNode}'s registry, which holds them for the trial. */
    public static List<Lease> holdAll(LockRegistry otherNode, AcquireOptions options) {
        List<Lease> held = new ArrayList<>();
        for (String job : JOBS) {
            held.add(otherNode.acquire(List.of(job), options));
        }
        return held;
    }

    /** Takes every job from ShedLock's {@code provider} for {@code lease}, as another node would hold them. */
    public static List<SimpleLock> holdAll(LockProvider provider, Duration lease) {
        List<SimpleLock> held = new ArrayList<>();
        for (String job : JOBS) {
            held.add(provider.lock(new LockConfiguration(ClockProvider.now(), job, lease, Duration.ZERO))
                    .orElseThrow(() -> new IllegalStateException("ShedLock did not get " + job)));
        }
        return held;
    }

    /** One thread's job: its name, and the count of the runs its ticks made. */
    @State(Scope.Thread)
    public static class Job {
        public List<String> keys;
        public String name;
        long runs;

        @Setup
        public void setUp(ThreadParams thread) {
            if (thread.getThreadIndex() >= JOBS.size()) {
                throw new IllegalStateException("at most " + JOBS.size() + " threads");
            }
            name = JOBS.get(thread.getThreadIndex());
            keys = List.of(name);
        }

        /** The job's work: nothing but counting, so that the tick's own cost shows. */
        public void run() {
            runs++;
        }

        /** {@link #run} as ShedLock's task with a result. */
        public Boolean call() {
            run();
            return Boolean.TRUE;
        }

        /** ShedLock's configuration of this tick: at most {@code lease}, at least nothing. */
        public LockConfiguration shedLockConfiguration(Duration lease) {
            return new LockConfiguration(ClockProvider.now(), name, lease, Duration.ZERO);
        }

        /** Fails the benchmark when the tick did not do what its path promises ({@code ran} or skipped). */
        public boolean expect(boolean ran, boolean shouldRun) {
            if (ran != shouldRun) {
                throw new IllegalStateException(name + (ran ? " ran on the skip path" : " was skipped on the run path"));
            }
            return ran;
        }
    }
}
