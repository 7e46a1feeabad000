package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LocksObserver;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @Locked} on a {@code Mono} or {@code Flux} on the in-memory backend (issues 15 and 24): a subscription whose
 * keys are free takes them on its own thread and releases them where its publisher ends, without a hand-off to
 * another thread and back; one whose key is held waits through {@code acquireAsync}, holding no thread, and is let in
 * on one of the registry's own threads. Either way one acquire is counted, never a timeout for the first try that
 * found the key held.
 */
class LockedMonoInMemoryTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withPropertyValues("locks.backend=local", "locks.retries=infinity", "locks.wait-time=30s")
            .withBean(Where.class)
            .withBean(CountingObserver.class);

    private final ExecutorService holders = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopHolders() {
        holders.shutdownNow();
    }

    @Test
    void freeKeysShouldBeTakenAndReleasedOnTheSubscribersThread() {
        runner.run(context -> {
            Where where = context.getBean(Where.class);
            LockRegistry locks = context.getBean(LockRegistry.class);
            String caller = Thread.currentThread().getName();

            assertThat(where.mono().block(Duration.ofSeconds(30))).as("no hand-off: the body ran where subscribed")
                    .isEqualTo(caller);
            assertThat(locks.heldLocks()).as("released before the subscriber saw the value").isEmpty();
            assertThat(where.flux().collectList().block(Duration.ofSeconds(30))).containsExactly(caller, caller);
            assertThat(locks.heldLocks()).isEmpty();
            assertThat(context.getBean(CountingObserver.class).results).containsOnlyKeys("acquired");
            assertThat(context.getBean(CountingObserver.class).results.get("acquired")).hasValue(2);
        });
    }

    @Test
    void aHeldKeyShouldBeWaitedForWithoutAThreadAndCountedOnce() {
        runner.run(context -> {
            Where where = context.getBean(Where.class);
            LockRegistry locks = context.getBean(LockRegistry.class);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch held = new CountDownLatch(1);
            Future<?> holder = holders.submit(() -> {
                try (Lease lease = locks.acquire(List.of("where"))) {
                    held.countDown();
                    release.await();
                }
                return null;
            });
            assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();

            Mono<String> waiting = where.mono().cache();
            waiting.subscribe();
            Thread.sleep(50);
            assertThat(locks.heldLock("where").orElseThrow().owner()).as("still the holder's").contains("pool-");
            release.countDown();

            assertThat(waiting.block(Duration.ofSeconds(30))).as("taken after the wait, on the registry's thread")
                    .startsWith("locks-local-async-");
            holder.get(30, TimeUnit.SECONDS);
            assertThat(locks.heldLocks()).isEmpty();
            Map<String, AtomicInteger> results = context.getBean(CountingObserver.class).results;
            assertThat(results).as("the first try that found the key held is no timeout").containsOnlyKeys("acquired");
            assertThat(results.get("acquired")).as("the holder's and the subscription's").hasValue(2);
        });
    }

    @Test
    void keysTheSubscribersThreadHoldsShouldBeWaitedForAsOnAnyOtherThread() {
        runner.run(context -> {
            Where where = context.getBean(Where.class);
            LockRegistry locks = context.getBean(LockRegistry.class);
            Mono<String> waiting;
            try (Lease outer = locks.acquire(List.of("where"))) {
                waiting = where.mono().cache();
                waiting.subscribe();
                Thread.sleep(100);
                assertThat(locks.heldLock("where").orElseThrow().fencingToken())
                        .as("a reactive lease is its subscription's, not a thread's: it does not re-enter")
                        .isEqualTo(outer.fencingToken());
            }
            assertThat(waiting.block(Duration.ofSeconds(30))).startsWith("locks-local-async-");
            assertThat(locks.heldLocks()).isEmpty();
        });
    }

    static class Where {

        @Locked(keys = "'where'")
        public Mono<String> mono() {
            return Mono.fromSupplier(() -> Thread.currentThread().getName());
        }

        @Locked(keys = "'where'")
        public Flux<String> flux() {
            return Flux.range(0, 2).map(i -> Thread.currentThread().getName());
        }
    }

    /** Counts the registry's acquire results (the starter hands every {@code LocksObserver} bean to it). */
    static class CountingObserver implements LocksObserver {

        final Map<String, AtomicInteger> results = new ConcurrentHashMap<>();

        @Override
        public void onAcquire(AcquireResult result, long nanos) {
            results.computeIfAbsent(result.tag(), tag -> new AtomicInteger()).incrementAndGet();
        }
    }
}
