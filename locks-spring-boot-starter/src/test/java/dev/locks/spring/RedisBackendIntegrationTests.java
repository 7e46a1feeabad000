package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.locks.LockRegistry;
import dev.locks.LockUnavailableException;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.redis.RedisLockRegistry;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spring.actuate.LocksHealthContributorAutoConfiguration;
import dev.locks.spring.actuate.LocksHealthIndicator;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Applications on the Redis backend as they run in production: each "node" is an application context with
 * Spring Boot's own Redis auto-configuration (Lettuce, with the client settings the locks-redis package
 * documentation recommends), all nodes on one redis-server of this class's own, which the tests stop and
 * start again.
 */
class RedisBackendIntegrationTests {

    private static final int THREADS_PER_NODE = 4;

    private static final int INCREMENTS_PER_THREAD = 25;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** What the nodes share besides Redis, unguarded: only the locks keep it right. */
    private final Ledger ledger = new Ledger();

    private ApplicationContextRunner node() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=500ms", "spring.data.redis.connect-timeout=500ms",
                        "locks.retries=infinity", "locks.wait-time=20s")
                .withBean(ClientResourcesBuilderCustomizer.class,
                        () -> resources -> resources.reconnectDelay(Delay.constant(Duration.ofMillis(100))))
                .withBean(LettuceClientOptionsBuilderCustomizer.class,
                        () -> options -> options.disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS))
                .withBean(Ledger.class, () -> ledger)
                .withBean(Worker.class);
    }

    @Test
    void lockedMethodOnTwoNodesShouldRunOneCallAtATime() {
        node().run(first -> node().run(second -> {
            assertThat(first.getBean(LockRegistry.class)).isInstanceOf(RedisLockRegistry.class);
            List<Callable<Object>> calls = new ArrayList<>();
            for (AssertableApplicationContext node : List.of(first, second)) {
                Worker worker = node.getBean(Worker.class);
                for (int t = 0; t < THREADS_PER_NODE; t++) {
                    calls.add(() -> {
                        for (int i = 0; i < INCREMENTS_PER_THREAD; i++) {
                            worker.increment();
                        }
                        return null;
                    });
                }
            }

            runTogether(calls);

            assertThat(ledger.value).isEqualTo(2 * THREADS_PER_NODE * INCREMENTS_PER_THREAD);
            assertThat(ledger.overlaps).hasValue(0);
            assertThat(first.getBean(LockRegistry.class).heldLocks()).isEmpty();
            assertThat(second.getBean(LockRegistry.class).heldLocks()).isEmpty();
        }));
    }

    @Test
    void fetchOrComputeOnTwoNodesShouldComputeOnceForEveryCaller() {
        node().run(first -> node().run(second -> {
            List<Callable<Object>> calls = new ArrayList<>();
            for (AssertableApplicationContext node : List.of(first, second)) {
                Worker worker = node.getBean(Worker.class);
                for (int t = 0; t < THREADS_PER_NODE; t++) {
                    calls.add(() -> worker.quote("ACME"));
                }
            }

            List<Object> quotes = runTogether(calls);

            assertThat(ledger.computations).hasValue(1);
            assertThat(quotes).hasSize(2 * THREADS_PER_NODE).doesNotContainNull();
            assertThat(new HashSet<>(quotes)).hasSize(1);
        }));
    }

    @Test
    void outageShouldBeDownAndKeepLockedBodiesFromRunningUntilRedisIsBack() {
        node().run(context -> {
            LocksHealthIndicator health = context.getBean(LocksHealthIndicator.class);
            Worker worker = context.getBean(Worker.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat(health.health().getDetails()).containsEntry("backend", "redis");

            redis.server().stop();

            Health down = health.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("backend", "redis");
            assertThat(down.getDetails().get("error").toString()).contains(LockUnavailableException.class.getName());
            assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(worker::increment);
            assertThat(ledger.bodies).hasValue(0);

            redis.server().restart();

            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.UP));
            worker.increment();
            assertThat(ledger.bodies).hasValue(1);
            assertThat(ledger.value).isEqualTo(1);
        });
    }

    /** Starts every call at once, and returns their results once all have returned (a minute at most). */
    private static List<Object> runTogether(List<Callable<Object>> calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Object>> running = new ArrayList<>();
            for (Callable<Object> call : calls) {
                running.add(pool.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            start.countDown();
            List<Object> results = new ArrayList<>();
            for (Future<Object> call : running) {
                results.add(call.get(1, TimeUnit.MINUTES));
            }
            return results;
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** A counter updated by read-modify-write, and what the calls did. */
    static class Ledger {

        volatile int value;

        final AtomicInteger inside = new AtomicInteger();

        final AtomicInteger overlaps = new AtomicInteger();

        final AtomicInteger bodies = new AtomicInteger();

        final AtomicInteger computations = new AtomicInteger();
    }

    /** One per node. */
    static class Worker {

        private final Ledger ledger;

        Worker(Ledger ledger) {
            this.ledger = ledger;
        }

        @Locked(keys = "'ledger'")
        public void increment() {
            ledger.bodies.incrementAndGet();
            if (ledger.inside.incrementAndGet() != 1) {
                ledger.overlaps.incrementAndGet();
            }
            int value = ledger.value;
            Thread.yield();
            ledger.value = value + 1;
            ledger.inside.decrementAndGet();
        }

        @FetchOrCompute(key = "'quote:' + #symbol", ttl = "1m")
        public String quote(String symbol) throws InterruptedException {
            int computation = ledger.computations.incrementAndGet();
            Thread.sleep(300);
            return symbol + " #" + computation;
        }
    }
}
