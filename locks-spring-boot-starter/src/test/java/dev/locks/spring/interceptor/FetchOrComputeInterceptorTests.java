package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.RecordingLockRegistry;
import dev.locks.test.ManualClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @FetchOrCompute} through the auto-configured interceptor and the real in-memory cache. */
class FetchOrComputeInterceptorTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("locks.compute.default-ttl=1m", "app.quote-ttl=30s");

    @Test
    void concurrentCallsForOneKeyShouldRunTheBodyOnce() throws Exception {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            int callers = 100;
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<String>> results = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return quotes.slow("ACME");
                    }));
                }
                start.countDown();
                List<String> values = new ArrayList<>();
                for (Future<String> result : results) {
                    values.add(result.get(WAIT.toSeconds(), TimeUnit.SECONDS));
                }
                assertThat(quotes.computations()).isOne();
                assertThat(values).hasSize(callers).containsOnly("ACME#1");
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void hitShouldNotRunTheBodyAndOtherKeysShouldComputeTheirOwn() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.quote("A")).isEqualTo("A#1");
            assertThat(quotes.quote("A")).isEqualTo("A#1");
            assertThat(quotes.quote("B")).isEqualTo("B#2");
        });
    }

    @Test
    void checkedExceptionShouldReachEveryWaiterWithTheSameType() throws Exception {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            ComputeCache cache = context.getBean(ComputeCache.class);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Throwable>> outcomes = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    outcomes.add(pool.submit(() -> {
                        try {
                            quotes.failing("X");
                            return null;
                        }
                        catch (Throwable ex) {
                            return ex;
                        }
                    }));
                }
                await().atMost(WAIT).until(() -> cache.computations().size() == 1
                        && cache.computations().get(0).waiters() == 3);
                quotes.release();
                for (Future<Throwable> outcome : outcomes) {
                    assertThat(outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                            .isInstanceOf(IOException.class)
                            .hasMessage("feed down");
                }
                assertThat(quotes.computations()).isOne();
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void failureShouldStoreNothing() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            quotes.release();
            for (int i = 0; i < 2; i++) {
                try {
                    quotes.failing("X");
                }
                catch (IOException expected) {
                    // each call computes again
                }
            }
            assertThat(quotes.computations()).isEqualTo(2);
        });
    }

    @Test
    void optionalShouldStoreItsContentAndEmptyShouldStoreNothing() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.maybe("A")).contains("A#1");
            assertThat(quotes.maybe("A")).contains("A#1");
            assertThat(quotes.maybe("none")).isEmpty();
            assertThat(quotes.maybe("none")).isEmpty();
            assertThat(quotes.computations()).isEqualTo(3);
        });
    }

    @Test
    void ttlAttributeShouldApplyWithPlaceholders() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            ManualClock clock = context.getBean(ManualClock.class);
            assertThat(quotes.quote("A")).isEqualTo("A#1");
            clock.advance(Duration.ofSeconds(29));
            assertThat(quotes.quote("A")).isEqualTo("A#1");
            clock.advance(Duration.ofSeconds(2));
            assertThat(quotes.quote("A")).isEqualTo("A#2");
        });
    }

    @Test
    void noTtlShouldMeanTheDefaultTtlProperty() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            ManualClock clock = context.getBean(ManualClock.class);
            assertThat(quotes.defaultTtl("A")).isEqualTo("A#1");
            clock.advance(Duration.ofSeconds(59));
            assertThat(quotes.defaultTtl("A")).isEqualTo("A#1");
            clock.advance(Duration.ofSeconds(2));
            assertThat(quotes.defaultTtl("A")).isEqualTo("A#2");
        });
    }

    @Test
    void annotationOptionsShouldApplyOverTheCacheDefaults() {
        runner.run(context -> {
            FetchOrComputeOperationSource source = context.getBean(FetchOrComputeOperationSource.class);
            ComputeOptions defaults = context.getBean(ComputeCache.class).defaultOptions();
            ComputeOptions tuned = source.operation(Quotes.class.getMethod("tuned", String.class), Quotes.class)
                    .options(defaults);
            assertThat(tuned.ttl()).isZero();
            assertThat(tuned.computeTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(tuned.waitTime()).hasValue(Duration.ofMillis(500));
            assertThat(source.operation(Quotes.class.getMethod("defaultTtl", String.class), Quotes.class)
                    .options(defaults)).isSameAs(defaults);
        });
    }

    @Test
    void primitiveResultsShouldComeBackUnboxed() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.price("A")).isEqualTo(42L);
            assertThat(quotes.price("A")).isEqualTo(42L);
            assertThat(quotes.computations()).isOne();
        });
    }

    @Test
    void nullKeyShouldBeRejectedNamingTheMethodAndTheExpression() {
        runner.run(context -> assertThatIllegalArgumentException()
                .isThrownBy(() -> context.getBean(Quotes.class).quote(null))
                .withMessageContaining("'#symbol'")
                .withMessageContaining("Quotes.quote(String)"));
    }

    @Test
    void withLockedTooAHitShouldTakeNoLock() {
        runner.withUserConfiguration(Recording.class).run(context -> {
            RecordingLockRegistry registry = context.getBean(RecordingLockRegistry.class);
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.lockedToo("A")).isEqualTo("A#1");
            assertThat(quotes.lockedToo("A")).isEqualTo("A#1");
            assertThat(registry.options()).hasSize(1);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Recording {

        @Bean
        RecordingLockRegistry recordingLockRegistry() {
            return new RecordingLockRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Quotes quotes() {
            return new Quotes();
        }

        @Bean
        ManualClock clock() {
            return new ManualClock();
        }
    }

    static class Quotes {

        private final AtomicInteger computations = new AtomicInteger();

        private final CountDownLatch release = new CountDownLatch(1);

        @FetchOrCompute(key = "'slow:' + #symbol")
        public String slow(String symbol) throws InterruptedException {
            Thread.sleep(100);
            return symbol + "#" + computations.incrementAndGet();
        }

        @FetchOrCompute(key = "#symbol", ttl = "${app.quote-ttl}")
        public String quote(String symbol) {
            return symbol + "#" + computations.incrementAndGet();
        }

        @FetchOrCompute(key = "'default:' + #symbol")
        public String defaultTtl(String symbol) {
            return symbol + "#" + computations.incrementAndGet();
        }

        @FetchOrCompute(key = "'failing:' + #symbol")
        public String failing(String symbol) throws IOException, InterruptedException {
            computations.incrementAndGet();
            release.await();
            throw new IOException("feed down");
        }

        @FetchOrCompute(key = "'maybe:' + #symbol")
        public Optional<String> maybe(String symbol) {
            int count = computations.incrementAndGet();
            return symbol.equals("none") ? Optional.empty() : Optional.of(symbol + "#" + count);
        }

        @FetchOrCompute(key = "'price:' + #symbol")
        public long price(String symbol) {
            computations.incrementAndGet();
            return 42;
        }

        @FetchOrCompute(key = "'tuned:' + #symbol", ttl = "0", computeTimeout = "PT2S", waitTime = "500ms")
        public String tuned(String symbol) {
            return symbol;
        }

        @FetchOrCompute(key = "'locked:' + #symbol")
        @Locked(keys = "'lock:' + #symbol")
        public String lockedToo(String symbol) {
            return symbol + "#" + computations.incrementAndGet();
        }

        public int computations() {
            return computations.get();
        }

        public void release() {
            release.countDown();
        }
    }
}
