package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeCache;
import dev.locks.Lease;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.local.LocalComputeCache;
import dev.locks.spring.ComputeCacheBuilderCustomizer;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.StartupFailures;
import dev.locks.test.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/**
 * {@code @FetchOrCompute(refreshAfter, staleIfError)} (section 11) on blocking and {@code Mono} methods, with value
 * time on a manual clock given to the compute cache; the attributes checked at startup, naming the method.
 */
class FreshValuesAnnotationTests {

    private final ManualClock valueClock = new ManualClock();
    private final List<ComputeResult> outcomes = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withBean(ComputeCacheBuilderCustomizer.class, () -> (ComputeCacheBuilderCustomizer<LocalComputeCache.Builder>)
                    builder -> builder.clock(valueClock))
            .withBean(LocksObserver.class, () -> new LocksObserver() {
                @Override
                public void onCompute(ComputeResult result, long nanos) {
                    outcomes.add(result);
                }
            });

    @Test
    void dueValueShouldBeServedAtOnceAndRefreshedInTheBackground() {
        runner.withBean(Quotes.class).run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.price("ACME")).isEqualTo(1);
            valueClock.advance(Duration.ofSeconds(30));

            assertThat(quotes.price("ACME")).as("the old value, at once").isEqualTo(1);

            await().atMost(Duration.ofSeconds(10)).until(() -> quotes.price("ACME") == 2);
            assertThat(quotes.computations()).isEqualTo(2);
            assertThat(outcomes).contains(ComputeResult.REFRESHED);
        });
    }

    /** A refresh runs the whole chain of interceptors inside @FetchOrCompute, as a miss does: here @Locked's. */
    @Test
    void backgroundRefreshShouldRunTheMethodUnderItsInnerInterceptors() {
        runner.withBean(Quotes.class).run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.lockedPrice("ACME")).as("computed under its lock").isEqualTo(1);
            valueClock.advance(Duration.ofSeconds(30));

            assertThat(quotes.lockedPrice("ACME")).isEqualTo(1);

            await().atMost(Duration.ofSeconds(10)).until(() -> quotes.lockedPrice("ACME") != 1);
            assertThat(quotes.lockedPrice("ACME")).as("refreshed under its lock too").isEqualTo(2);
        });
    }

    @Test
    void monoMethodShouldServeTheStaleValueWhenItsComputationFails() {
        runner.withBean(Quotes.class).run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.rate("EUR").block()).isEqualTo("r1");
            valueClock.advance(Duration.ofMinutes(2));
            quotes.down(true);

            assertThat(quotes.rate("EUR").block()).as("stale instead of the failure").isEqualTo("r1");
            assertThat(outcomes).contains(ComputeResult.STALE);

            valueClock.advance(Duration.ofMinutes(5)); // past the stale window of 3 minutes
            assertThatThrownBy(() -> quotes.rate("EUR").block()).hasMessageContaining("upstream down");
        });
    }

    @Test
    void propertyDefaultsShouldApplyToMethodsThatGiveNone() {
        runner.withBean(Quotes.class).withPropertyValues("locks.compute.stale-if-error=1h").run(context -> {
            assertThat(context.getBean(ComputeCache.class).defaultOptions().staleIfError()).contains(Duration.ofHours(1));
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.plain("ACME")).isEqualTo("p1");
            valueClock.advance(Duration.ofMinutes(2));
            quotes.down(true);

            assertThat(quotes.plain("ACME")).isEqualTo("p1");
        });
    }

    @Test
    void refreshAfterNotShorterThanTheTtlShouldStopStartupNamingTheMethod() {
        FailureAnalysis analysis = StartupFailures.analyzeStartup(runner, LateRefresh.class,
                InvalidLocksAnnotationException.class);
        assertThat(analysis.getDescription()).contains("method 'price'").contains("Attribute: refreshAfter")
                .contains("refreshAfter (PT2M) must be shorter than ttl (PT1M)");
    }

    @Test
    void defaultRefreshAfterNotShorterThanTheMethodsTtlShouldStopStartupNamingTheMethod() {
        FailureAnalysis analysis = StartupFailures.analyzeStartup(
                runner.withPropertyValues("locks.compute.refresh-after=2m"), ShortTtl.class,
                InvalidLocksAnnotationException.class);
        assertThat(analysis.getDescription()).contains("method 'price'").contains("Attribute: ttl")
                .contains("locks.compute.refresh-after");
    }

    static class Quotes {

        final AtomicInteger computed = new AtomicInteger();
        final AtomicInteger rates = new AtomicInteger();
        volatile boolean down;

        /** The upstream fails from now on (a method: the test holds the proxy, whose fields are not the bean's). */
        public void down(boolean down) {
            this.down = down;
        }

        public int computations() {
            return computed.get();
        }

        @FetchOrCompute(key = "#symbol", ttl = "1m", refreshAfter = "20s")
        public int price(String symbol) {
            return computed.incrementAndGet();
        }

        final AtomicInteger locked = new AtomicInteger();

        /** Its count, negative when it ran without its lock. */
        @FetchOrCompute(key = "#symbol", ttl = "1m", refreshAfter = "20s")
        @Locked(keys = "'price:' + #symbol")
        public int lockedPrice(String symbol) {
            int count = locked.incrementAndGet();
            return Lease.current().isPresent() ? count : -count;
        }

        @FetchOrCompute(key = "#currency", ttl = "1m", staleIfError = "3m")
        public Mono<String> rate(String currency) {
            return Mono.defer(() -> down ? Mono.error(new IllegalStateException("upstream down"))
                    : Mono.just("r" + rates.incrementAndGet()));
        }

        @FetchOrCompute(key = "#symbol", ttl = "1m")
        public String plain(String symbol) {
            if (down) {
                throw new IllegalStateException("upstream down");
            }
            return "p1";
        }
    }

    static class LateRefresh {

        @FetchOrCompute(key = "#symbol", ttl = "1m", refreshAfter = "2m")
        public int price(String symbol) {
            return 1;
        }
    }

    static class ShortTtl {

        @FetchOrCompute(key = "#symbol", ttl = "1m")
        public int price(String symbol) {
            return 1;
        }
    }
}
