package dev.locks.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Computation;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.local.LocalComputeCache;
import dev.locks.local.LocalLockRegistry;
import dev.locks.redis.RedisComputeCache;
import dev.locks.redis.RedisLockRegistry;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.support.AsyncComputeCache;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The asynchronous calls of the library made, and cancelled, at once from many threads that may not block (Reactor's
 * parallel threads, as an event loop is), with BlockHound installed: starting a call, cancelling it and closing an
 * in-memory lease never park the caller, however contended. A caller parked on a contended lock of a thread pool's
 * queue fails with BlockHound's error (a WebFlux request of the Redis stampede test failed so in CI, with a 500),
 * and a cancellation that fails so inside the future's callback leaves its waiter in the flight.
 */
class NonBlockingCallersBlockHoundTests {

    private static final int THREADS = 8;

    private static final int CALLS_PER_THREAD = 20_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void contendedCallsShouldNeverParkTheirNonBlockingCallers() {
        Scheduler nonBlocking = Schedulers.newParallel("contended", THREADS);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        try (RedisComputeCache values = RedisComputeCache.builder(redis.connectionFactory()).build()) {
            ComputeOptions options = ComputeOptions.defaults().withTtl(Duration.ofMinutes(5));
            values.fetchOrCompute("hot", Duration.ofMinutes(5), () -> "value");

            List<CompletableFuture<ComputeOutcome>> calls = Flux.range(0, THREADS)
                    .flatMap(thread -> Mono.fromCallable(() -> startCalls(values, options, failures))
                            .subscribeOn(nonBlocking), THREADS)
                    .flatMapIterable(started -> started).collectList().block(Duration.ofMinutes(2));

            assertThat(failures).as("calls whose start blocked a non-blocking thread, the first of them: %s",
                    failures.isEmpty() ? "" : stackOf(failures.get(0))).isEmpty();
            assertThat(calls).hasSize(THREADS * CALLS_PER_THREAD);
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
            assertThat(calls).allSatisfy(call -> assertThat(call.join()).isEqualTo(new ComputeOutcome.Hit("value")));
        }
        finally {
            nonBlocking.dispose();
        }
    }

    @Test
    void contendedCancellationsShouldLeaveTheFlightWithoutParkingTheirCallers() {
        Scheduler nonBlocking = Schedulers.newParallel("cancelling", THREADS);
        int waiters = THREADS * 500;
        try (LocalComputeCache values = LocalComputeCache.builder().build()) {
            ComputeOptions options = ComputeOptions.defaults().withTtl(Duration.ofMinutes(5))
                    .withComputeTimeout(Duration.ofMinutes(5)).withWaitTime(Duration.ofMinutes(5));
            ComputeOutcome computer = values.begin("slow", options, "");
            assertThat(computer).isInstanceOf(ComputeOutcome.Compute.class);
            List<CompletableFuture<ComputeOutcome>> waiting = new CopyOnWriteArrayList<>();
            for (int i = 0; i < waiters; i++) {
                waiting.add(values.beginAsync("slow", options, "").toCompletableFuture());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> waitersOf(values) == waiters);

            Flux.range(0, THREADS).flatMap(thread -> Mono.fromRunnable(() -> {
                for (int i = thread; i < waiters; i += THREADS) {
                    waiting.get(i).cancel(false);
                }
            }).subscribeOn(nonBlocking), THREADS).blockLast(Duration.ofMinutes(1));

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(waitersOf(values))
                    .as("waiters still in the flight after every one was cancelled").isZero());
            values.complete(((ComputeOutcome.Compute) computer).ticket(), "value", null);
            assertThat(values.begin("slow", options, "")).isEqualTo(new ComputeOutcome.Hit("value"));
        }
        finally {
            nonBlocking.dispose();
        }
    }

    @Test
    void contendedAsynchronousAcquiresAndInMemoryReleasesShouldNeverParkTheirCallers() {
        try (LocalLockRegistry local = LocalLockRegistry.builder().build()) {
            cycleOnOneKey(local, true);
        }
        try (RedisLockRegistry remote = RedisLockRegistry.builder(redis.connectionFactory()).build()) {
            cycleOnOneKey(remote, false); // a Redis release is a round trip: the starter makes it elsewhere
        }
    }

    /**
     * Many acquires of one key, each started on a non-blocking thread; each lease is closed back on a non-blocking
     * thread when {@code closeHere} (in memory the starter releases where the publisher ends), else on
     * {@link Schedulers#boundedElastic()}. A blocking call in any of it fails the {@code Flux}.
     */
    private static void cycleOnOneKey(LockRegistry registry, boolean closeHere) {
        Scheduler nonBlocking = Schedulers.newParallel("acquiring", THREADS);
        AcquireOptions options = AcquireOptions.defaults().withInfiniteRetries().withWaitTime(Duration.ofMinutes(1));
        int cycles = closeHere ? 20_000 : 2_000;
        try {
            Long held = Flux.range(0, cycles)
                    .flatMap(i -> Mono.defer(() -> Mono.fromFuture(registry.acquireAsync(List.of("one"), options)))
                            .subscribeOn(nonBlocking)
                            .publishOn(closeHere ? nonBlocking : Schedulers.boundedElastic())
                            .doOnNext(Lease::close), 64)
                    .count().block(Duration.ofMinutes(2));
            assertThat(held).isEqualTo(cycles);
            assertThat(registry.heldLocks()).isEmpty();
        }
        finally {
            nonBlocking.dispose();
        }
    }

    private static int waitersOf(LocalComputeCache values) {
        return values.computations().stream().mapToInt(Computation::waiters).sum();
    }

    private static String stackOf(Throwable failure) {
        StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        return trace.toString();
    }

    private static List<CompletableFuture<ComputeOutcome>> startCalls(AsyncComputeCache values,
            ComputeOptions options, List<Throwable> failures) {
        List<CompletableFuture<ComputeOutcome>> started = new ArrayList<>(CALLS_PER_THREAD);
        for (int i = 0; i < CALLS_PER_THREAD; i++) {
            try {
                started.add(values.beginAsync("hot", options, "").toCompletableFuture());
            }
            catch (Throwable e) {
                failures.add(e);
            }
        }
        return started;
    }
}
