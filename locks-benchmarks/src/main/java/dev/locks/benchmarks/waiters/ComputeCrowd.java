package dev.locks.benchmarks.waiters;

import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.benchmarks.redis.RedisServerProcess;
import dev.locks.redis.RedisComputeCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Issue 24, the compute side: {@code n} callers on one node miss one Redis key that another node is computing; once
 * all wait, that node completes it, and every caller receives the value. Three ways to wait, one after the other on
 * one server:
 * <ul>
 *   <li><b>beginAsync</b>: {@code n} subscriptions to {@code Mono.fromFuture(beginAsync)}, what a
 *       {@code @FetchOrCompute} {@code Mono} now does (no thread per waiter);</li>
 *   <li><b>wait pool</b>: {@code n} blocking {@code begin} calls on a bounded-elastic scheduler of 10 threads per
 *       core, what the starter's {@code locks-wait} pool did before (and still does for an application's own
 *       cache);</li>
 *   <li><b>virtual threads</b>: {@code n} virtual threads, each in a blocking {@code begin} (Java 21 and later;
 *       skipped on an older JVM).</li>
 * </ul>
 * Reported: the time from the completion until the last caller has the value, and the most platform threads the
 * JVM had meanwhile (sampled every 10 ms). Arguments: {@code [n] [rounds]}, default 10,000 and 3.
 */
public final class ComputeCrowd {

    private static final ComputeOptions OPTIONS = ComputeOptions.defaults().withTtl(Duration.ofMinutes(5))
            .withComputeTimeout(Duration.ofMinutes(5));

    private ComputeCrowd() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        ExecutorService virtual = virtualThreads();
        Scheduler pool = Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
                Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, "crowd-wait", 60, true);
        System.out.printf("# %d callers missing one Redis key another node computes, %d cores, Java %s%n", n,
                Runtime.getRuntime().availableProcessors(), Runtime.version());
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        try (RedisServerProcess server = RedisServerProcess.start()) {
            RedisComputeCache computer = RedisComputeCache.builder(factory(server.port(), factories)).build();
            RedisComputeCache waiters = RedisComputeCache.builder(factory(server.port(), factories)).build();
            System.out.println("| round | waiting as | all served after | most platform threads |");
            System.out.println("| ---: | --- | ---: | ---: |");
            for (int round = 1; round <= rounds; round++) {
                String suffix = ":" + round;
                print(round, "`beginAsync` (`Mono`)", crowd(computer, waiters, "async" + suffix, n,
                        key -> Mono.fromFuture(() -> waiters.beginAsync(key, OPTIONS, "")).toFuture()));
                print(round, "blocking `begin` on a wait pool", crowd(computer, waiters, "pool" + suffix, n,
                        key -> Mono.fromCallable(() -> waiters.begin(key, OPTIONS, "")).subscribeOn(pool).toFuture()));
                if (virtual != null) {
                    print(round, "blocking `begin` on virtual threads", crowd(computer, waiters, "virtual" + suffix, n,
                            key -> CompletableFuture.supplyAsync(() -> waiters.begin(key, OPTIONS, ""), virtual)));
                }
            }
            computer.close();
            waiters.close();
        } finally {
            factories.forEach(LettuceConnectionFactory::destroy);
            pool.dispose();
            if (virtual != null) {
                virtual.shutdownNow();
            }
        }
    }

    private record Result(long millis, int threadsBefore, int platformThreads) {
    }

    private static void print(int round, String as, Result result) {
        System.out.printf(Locale.ROOT, "| %d | %s | %,d ms | %d (%d before) |%n", round, as, result.millis(),
                result.platformThreads(), result.threadsBefore());
    }

    private static Result crowd(RedisComputeCache computer, RedisComputeCache waiters, String key, int n,
            Function<String, CompletableFuture<ComputeOutcome>> begin) throws Exception {
        ComputeOutcome turn = computer.begin(key, OPTIONS, "");
        if (!(turn instanceof ComputeOutcome.Compute compute)) {
            throw new IllegalStateException("the computing node did not get the turn: " + turn);
        }
        PlatformThreads threads = new PlatformThreads();
        List<CompletableFuture<ComputeOutcome>> calls = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            calls.add(begin.apply(key));
        }
        Thread.sleep(2_000); // every caller has looked the key up and waits (or is queued for a thread)
        long start = System.nanoTime();
        computer.complete(compute.ticket(), "value", null);
        for (CompletableFuture<ComputeOutcome> call : calls) {
            ComputeOutcome outcome = call.get(10, TimeUnit.MINUTES);
            Object value = outcome instanceof ComputeOutcome.Value waited ? waited.value()
                    : outcome instanceof ComputeOutcome.Hit hit ? hit.value() : outcome;
            if (!"value".equals(value)) {
                throw new IllegalStateException("a caller got " + outcome);
            }
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        threads.close();
        return new Result(millis, threads.before(), threads.most());
    }

    private static LettuceConnectionFactory factory(int port, List<LettuceConnectionFactory> factories) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1",
                port));
        factory.afterPropertiesSet();
        factory.start();
        factories.add(factory);
        return factory;
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()} on Java 21 and later; {@code null} before. */
    private static ExecutorService virtualThreads() {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            System.out.println("# no virtual threads on Java " + Runtime.version() + ": two crowds run");
            return null;
        }
    }
}
