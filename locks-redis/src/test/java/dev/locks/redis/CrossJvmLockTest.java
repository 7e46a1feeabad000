package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.redis.test.ProcessLines;
import dev.locks.redis.test.RedisServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Locks across JVMs: this test's JVM and a {@link LockWorker} JVM it starts, on one redis-server.
 */
class CrossJvmLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration START = Duration.ofSeconds(60);

    private final List<Worker> workers = new ArrayList<>();
    private RedisLockRegistry registry;

    @AfterEach
    void stopWorkers() throws InterruptedException {
        for (Worker worker : workers) {
            worker.process.destroyForcibly();
            worker.process.waitFor(10, TimeUnit.SECONDS);
        }
        if (registry != null) {
            registry.close();
        }
    }

    private RedisLockRegistry registry() {
        registry = RedisLockRegistry.builder(redis.connectionFactory()).cleanupInterval(Duration.ZERO).build();
        return registry;
    }

    @Test
    void lockShouldExcludeTheOtherJvmAndTokensShouldNeverGoBackwards() throws Exception {
        int times = 300;
        RedisLockRegistry here = registry();
        Worker worker = start("increment", Integer.toString(times));
        worker.await("READY");

        LockWorker.increment(here, new StringRedisTemplate(redis.connectionFactory()), times);

        worker.await("DONE");
        assertThat(worker.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(worker.process.exitValue()).isZero();
        assertThat(redis.server().command("GET", "counter")).isEqualTo(Integer.toString(2 * times));
        List<Long> tokens = ((List<?>) redis.server().command("LRANGE", "tokens", "0", "-1")).stream()
                .map(token -> Long.parseLong((String) token)).toList();
        assertThat(tokens).as("appended under the lock, in acquisition order").hasSize(2 * times)
                .isSorted().doesNotHaveDuplicates();
    }

    @Test
    void killedHoldersLockShouldFreeAfterItsLockTimeoutNotBefore() throws Exception {
        RedisLockRegistry here = registry();
        Worker worker = start("hold", "k", "2000", "false");
        long held = worker.awaitNanos("HELD");

        worker.kill();
        assertThat(here.tryAcquire(List.of("k"))).as("the lock outlives its JVM").isEmpty();

        assertThat(freedAfter(here, "k", held)).isBetween(Duration.ofMillis(1_800), Duration.ofMillis(5_000));
    }

    @Test
    void liveHolderWithWatchdogShouldKeepItsLockPastTheTimeoutUntilKilled() throws Exception {
        RedisLockRegistry here = registry();
        Worker worker = start("hold", "k", "900", "true");
        worker.await("HELD");

        Thread.sleep(2_500);
        assertThat(here.tryAcquire(List.of("k"))).as("renewed by the other JVM's watchdog").isEmpty();

        long killed = worker.kill();

        assertThat(freedAfter(here, "k", killed)).as("at most the lock timeout after the crash")
                .isLessThan(Duration.ofMillis(900 + 2_000));
    }

    /**
     * SPEC "Infinite lock timeout on a distributed backend": the node holds an "infinite" lock under a renewed
     * lease (here 3 s, renewed every second without the watchdog), so it outlives many leases while its JVM
     * lives, and frees itself about a lease after a crash; never a key without expiry.
     */
    @Test
    void killedHoldersInfiniteLockShouldFreeAfterTheLeaseNotBefore() throws Exception {
        RedisLockRegistry here = registry();
        Worker worker = start("hold", "k", "infinite", "false", "3000");
        worker.await("HELD");
        assertThat((Long) redis.server().command("PTTL", "locks:lock:k")).as("never a key without expiry")
                .isBetween(1L, 3_000L);
        assertThat(here.heldLock("k").orElseThrow().expiresAt()).as("the lease never expires for its holder")
                .isEqualTo(java.time.Instant.MAX);

        Thread.sleep(4_500); // longer than the lease: renewed by its node, watchdog off
        assertThat(here.tryAcquire(List.of("k"))).as("renewed while its JVM lives").isEmpty();

        long killed = worker.kill();
        Thread.sleep(1_000);
        assertThat(here.tryAcquire(List.of("k"))).as("renewed at most a third of the lease before the crash")
                .isEmpty();

        assertThat(freedAfter(here, "k", killed)).as("about the lease after the crash")
                .isBetween(Duration.ofMillis(1_500), Duration.ofMillis(3_000 + 3_000));
    }

    /**
     * SPEC 13: every permit is a lease of its own, so a crashed holder's permits free themselves after their lock
     * timeout (never leaked, as Redisson's RSemaphore leaks them), not before: the worker's watchdog renewed them
     * while it lived.
     */
    @Test
    void killedHoldersPermitsShouldFreeAfterTheirLockTimeoutNotBefore() throws Exception {
        RedisLockRegistry here = registry();
        AcquireOptions three = AcquireOptions.defaults().withPermits(3);
        Worker worker = start("permits", "tenant:7", "3", "2", "1000", "true");
        worker.await("HELD");
        Lease mine = here.tryAcquire(List.of("tenant:7"), three).orElseThrow();
        assertThat(here.heldLocks()).filteredOn(lock -> lock.key().equals("tenant:7")).hasSize(3);

        Thread.sleep(1_500); // longer than the lock timeout: renewed by the worker's watchdog while it lives
        assertThat(here.tryAcquire(List.of("tenant:7"), three)).as("all 3 permits held").isEmpty();

        long killed = worker.kill();
        assertThat(here.tryAcquire(List.of("tenant:7"), three)).as("the permits outlive their JVM").isEmpty();

        assertThat(freedAfter(here, "tenant:7", three, killed)).as("at most the lock timeout after the crash")
                .isLessThan(Duration.ofMillis(1_000 + 2_000));
        Lease last = here.tryAcquire(List.of("tenant:7"), three).orElseThrow(); // the second one freed too
        assertThat(here.heldLocks()).filteredOn(lock -> lock.key().equals("tenant:7")).hasSize(2);
        last.close();
        mine.close();
    }

    @Test
    void gracefulShutdownShouldReleaseAtOnce() throws Exception {
        RedisLockRegistry here = registry();
        Worker worker = start("hold", "k", "60000", "true");
        worker.await("HELD");

        worker.process.destroy(); // SIGTERM: the worker's shutdown hook closes its registry
        assertThat(worker.process.waitFor(30, TimeUnit.SECONDS)).isTrue();

        assertThat(here.tryAcquire(List.of("k"))).as("released, not left to expire in a minute").isPresent()
                .get().satisfies(Lease::close);
    }

    /** Polls until {@code key} can be taken, and returns how long that was after {@code sinceNanos}. */
    private static Duration freedAfter(RedisLockRegistry registry, String key, long sinceNanos) {
        return freedAfter(registry, key, AcquireOptions.defaults(), sinceNanos);
    }

    /** As {@link #freedAfter(RedisLockRegistry, String, long)}, taking the key under {@code options}. */
    private static Duration freedAfter(RedisLockRegistry registry, String key, AcquireOptions options,
            long sinceNanos) {
        Lease lease = await().pollInSameThread().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> registry.tryAcquire(List.of(key), options), Optional::isPresent).get();
        Duration after = Duration.ofNanos(System.nanoTime() - sinceNanos);
        lease.close();
        return after;
    }

    private Worker start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"),
                LockWorker.class.getName(), Integer.toString(redis.port())));
        command.addAll(List.of(args));
        Path log = Files.createTempFile("lock-worker-", ".log");
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        Worker worker = new Worker(process, log);
        workers.add(worker);
        return worker;
    }

    /** A worker JVM and the lines it printed, read as they come. */
    private static final class Worker {

        final Process process;
        final Path log;
        final BlockingQueue<String> lines;

        Worker(Process process, Path log) {
            this.process = process;
            this.log = log;
            this.lines = ProcessLines.follow(process, "lock-worker-output");
        }

        /** SIGKILL, as a crash: no shutdown hook runs, nothing is released. Returns when it was sent. */
        long kill() throws InterruptedException {
            long killed = System.nanoTime();
            process.destroyForcibly();
            assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
            return killed;
        }

        void await(String prefix) throws Exception {
            awaitNanos(prefix);
        }

        /** Waits for a line starting with {@code prefix}; returns when it was read. */
        long awaitNanos(String prefix) throws Exception {
            long deadline = System.nanoTime() + START.toNanos();
            while (System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line != null && line.startsWith(prefix)) {
                    return System.nanoTime();
                }
                if (line == null && !process.isAlive() && lines.isEmpty()) {
                    break;
                }
            }
            throw new AssertionError("worker printed no " + prefix + " line; its log: " + log + "\n"
                    + Files.readString(log));
        }
    }
}
