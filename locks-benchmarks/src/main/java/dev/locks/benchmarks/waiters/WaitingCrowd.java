package dev.locks.benchmarks.waiters;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.benchmarks.redis.RedisNodes;
import dev.locks.benchmarks.redis.RedisServerProcess;
import dev.locks.redis.RedisLockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * Issue 24: {@code n} callers wait for one Redis key that another node holds; once all wait, it is released, and
 * each caller in turn takes it, counts, and releases it. Two ways to wait, one after the other on one server:
 * <ul>
 *   <li><b>mono</b>: {@code n} subscriptions to {@code Mono.fromFuture(acquireAsync)}, what a {@code @Locked}
 *       {@code Mono} does (no thread per waiter);</li>
 *   <li><b>virtual</b>: {@code n} virtual threads, each in a blocking {@code acquire} (Java 21 and later; skipped
 *       on an older JVM).</li>
 * </ul>
 * Reported: the time from the release until the last caller is done, and the most platform threads the JVM had
 * meanwhile (sampled every 10 ms), beside the cores. Arguments: {@code [n] [rounds]}, default 10,000 and 3.
 */
public final class WaitingCrowd {

    private static final AcquireOptions PATIENT = AcquireOptions.defaults().withInfiniteRetries()
            .withWaitTime(Duration.ofMinutes(10));

    private WaitingCrowd() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        ExecutorService virtual = virtualThreads();
        System.out.printf("# %d waiters on one Redis key, %d cores, Java %s%n", n,
                Runtime.getRuntime().availableProcessors(), Runtime.version());
        try (RedisServerProcess server = RedisServerProcess.start();
                RedisNodes redisNodes = new RedisNodes(server.port(), 2)) {
            List<RedisLockRegistry> nodes = redisNodes.registries();
            System.out.println("| round | waiting as | all served after | most platform threads | overlaps |");
            System.out.println("| ---: | --- | ---: | ---: | ---: |");
            for (int round = 1; round <= rounds; round++) {
                print(round, "`Mono` subscriptions", crowd(nodes, n, null));
                if (virtual != null) {
                    print(round, "virtual threads", crowd(nodes, n, virtual));
                }
            }
        } finally {
            if (virtual != null) {
                virtual.shutdownNow();
            }
        }
    }

    private record Result(long millis, int threadsBefore, int platformThreads, int overlaps) {
    }

    private static void print(int round, String as, Result result) {
        System.out.printf(Locale.ROOT, "| %d | %s | %,d ms | %d (%d before) | %d |%n", round, as, result.millis(),
                result.platformThreads(), result.threadsBefore(), result.overlaps());
    }

    /** One crowd: {@code Mono} subscriptions when {@code virtual} is null, else blocking calls on its threads. */
    private static Result crowd(List<RedisLockRegistry> nodes, int n, ExecutorService virtual) throws Exception {
        RedisLockRegistry holder = nodes.get(0);
        RedisLockRegistry waiters = nodes.get(1);
        Lease held = holder.acquire(List.of("crowd"));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger served = new AtomicInteger();
        Runnable critical = () -> {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            inside.decrementAndGet();
            served.incrementAndGet();
        };
        PlatformThreads threads = new PlatformThreads();
        List<CompletableFuture<?>> monos = new ArrayList<>();
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (virtual == null) {
                monos.add(Mono.fromFuture(() -> {
                    started.incrementAndGet();
                    return waiters.acquireAsync(List.of("crowd"), PATIENT);
                }).doOnNext(lease -> {
                    try (lease) {
                        critical.run();
                    }
                }).toFuture());
            } else {
                calls.add(virtual.submit(() -> {
                    started.incrementAndGet();
                    try (Lease lease = waiters.acquire(List.of("crowd"), PATIENT)) {
                        critical.run();
                    }
                    return null;
                }));
            }
        }
        while (started.get() < n) {
            Thread.sleep(10);
        }
        Thread.sleep(1_000); // every first attempt made and every waiter queued
        long start = System.nanoTime();
        held.close();
        for (CompletableFuture<?> mono : monos) {
            mono.get(10, TimeUnit.MINUTES);
        }
        for (Future<?> call : calls) {
            call.get(10, TimeUnit.MINUTES);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        threads.close();
        if (served.get() != n) {
            throw new IllegalStateException(served.get() + " of " + n + " served");
        }
        return new Result(millis, threads.before(), threads.most(), overlaps.get());
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()} on Java 21 and later; {@code null} before. */
    private static ExecutorService virtualThreads() {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            System.out.println("# no virtual threads on Java " + Runtime.version() + ": only the Mono crowd runs");
            return null;
        }
    }
}
