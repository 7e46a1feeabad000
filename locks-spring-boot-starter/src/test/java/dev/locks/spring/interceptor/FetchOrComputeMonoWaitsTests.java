package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.local.LocalComputeCache;
import dev.locks.support.AsyncComputeCache;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import dev.locks.LocksObserver;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.spring.LocksAutoConfiguration;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code @FetchOrCompute} on a {@code Mono} waits without a thread (issue 24): a thousand subscribers of one key that
 * miss while it is computed are callbacks in the key's flight, not threads of a pool, and all receive the one
 * computation's value; nothing of it runs on the starter's {@code locks-wait} pool, which only an application's own
 * compute cache still uses; the same with refresh-ahead and stale-if-error, which took a bounded-elastic thread per
 * subscriber before. In memory a hit comes back on the subscriber's own thread. A turn to compute that arrives as its
 * subscriber cancels is computed all the same, for the others.
 */
class FetchOrComputeMonoWaitsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withPropertyValues("locks.backend=local")
            .withBean(Quote.class)
            .withBean(Quotes.class)
            .withBean(CountingObserver.class);

    @Test
    void aThousandWaitingSubscribersShouldHoldNoThreadAndReceiveTheOneValue() {
        runner.run(context -> {
            aThousandSubscribersShouldWaitWithoutThreads(context, quotes -> quotes.quote("acme"));

            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                    .noneMatch(name -> name.startsWith("locks-wait"));
            CountingObserver observer = context.getBean(CountingObserver.class);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(observer.results.get("computed")).hasValue(1);
                assertThat(observer.results.get("waited")).hasValue(1_000);
            });
        });
    }

    @Test
    void aThousandWaitingSubscribersWithRefreshAheadShouldHoldNoThreadEither() {
        runner.run(context -> aThousandSubscribersShouldWaitWithoutThreads(context,
                quotes -> quotes.freshQuote("acme")));
    }

    /**
     * One subscriber computes, a thousand more wait for it: the threads of the JVM grow by fewer than 50 meanwhile,
     * and all get the one value once it is emitted.
     */
    private static void aThousandSubscribersShouldWaitWithoutThreads(AssertableApplicationContext context,
            Function<Quotes, Mono<String>> call) throws Exception {
        Quotes quotes = context.getBean(Quotes.class);
        Quote quote = context.getBean(Quote.class);
        ComputeCache cache = context.getBean(ComputeCache.class);
        CompletableFuture<String> computer = call.apply(quotes).toFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> quote.calls.get() == 1);
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<CompletableFuture<String>> waiters = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            waiters.add(call.apply(quotes).toFuture());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> cache.computations().stream()
                .mapToInt(Computation::waiters).sum() == 1_000);

        assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore)
                .as("threads started for 1,000 waiting subscribers").isLessThan(50);
        quote.value.tryEmitValue("42.0");

        assertThat(computer.get(30, TimeUnit.SECONDS)).isEqualTo("42.0");
        for (CompletableFuture<String> waiter : waiters) {
            assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("42.0");
        }
        assertThat(quote.calls).hasValue(1);
        assertThat(cache.inFlightCount()).isZero();
    }

    @Test
    void aHitShouldComeBackOnTheSubscribersThread() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            Quote quote = context.getBean(Quote.class);
            quote.value.tryEmitValue("42.0");
            assertThat(quotes.quote("acme").block(Duration.ofSeconds(30))).isEqualTo("42.0");

            String caller = Thread.currentThread().getName();
            assertThat(quotes.quote("acme").map(value -> Thread.currentThread().getName())
                    .block(Duration.ofSeconds(30))).isEqualTo(caller);
            assertThat(quote.calls).hasValue(1);
        });
    }

    /**
     * The turn to compute comes as the first subscriber cancels: its future was completing, so the cancellation
     * could not stop it, and Reactor drops the turn. The computation must run all the same (it belongs to the key's
     * callers, not to that subscriber), or the key stays claimed by nobody until its compute timeout.
     */
    @Test
    void aTurnThatArrivesAsItsSubscriberCancelsShouldStillBeComputed() {
        CompletableFuture<CompletableFuture<ComputeOutcome>> turn = new CompletableFuture<>();
        CompletableFuture<ComputeOutcome> turnArriving = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                return false; // completing already: too late to cancel
            }
        };
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
                .withPropertyValues("locks.backend=local", "locks.compute.timeout=1h")
                .withBean(Quote.class)
                .withBean(Quotes.class)
                .withBean(ComputeCache.class,
                        () -> firstBeginAnswers(LocalComputeCache.builder().build(), turn, turnArriving))
                .run(context -> {
                    Quotes quotes = context.getBean(Quotes.class);
                    Quote quote = context.getBean(Quote.class);
                    ComputeCache cache = context.getBean(ComputeCache.class);
                    Disposable subscriber = quotes.quote("acme").subscribe();
                    await().atMost(Duration.ofSeconds(30)).until(() -> cache.inFlightCount() == 1);

                    subscriber.dispose();
                    turnArriving.complete(turn.join().join()); // the subscriber's turn, given as it cancelled

                    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(quote.calls).hasValue(1));
                    quote.value.tryEmitValue("42.0");

                    await().atMost(Duration.ofSeconds(30)).until(() -> cache.computations().stream()
                            .noneMatch(computation -> computation.key().equals("quote:acme")));
                    assertThat(quotes.quote("acme").block(Duration.ofSeconds(30))).isEqualTo("42.0");
                    assertThat(quote.calls).hasValue(1);
                });
    }

    /**
     * {@code values}, except that its first {@code beginAsync} begins for real, hands its real future to
     * {@code real} and answers through {@code answer}, which the test completes with the real outcome.
     */
    private static AsyncComputeCache firstBeginAnswers(LocalComputeCache values,
            CompletableFuture<CompletableFuture<ComputeOutcome>> real, CompletableFuture<ComputeOutcome> answer) {
        AtomicInteger begins = new AtomicInteger();
        return (AsyncComputeCache) Proxy.newProxyInstance(FetchOrComputeMonoWaitsTests.class.getClassLoader(),
                new Class<?>[] { AsyncComputeCache.class, AutoCloseable.class }, (proxy, method, args) -> {
                    if (method.getName().equals("beginAsync") && begins.getAndIncrement() == 0) {
                        real.complete(values.beginAsync((String) args[0], (ComputeOptions) args[1],
                                (String) args[2]));
                        return answer;
                    }
                    try {
                        return method.invoke(values, args);
                    }
                    catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** The quote's one value, emitted when the test says, and how often it was asked for. */
    static class Quote {

        final AtomicInteger calls = new AtomicInteger();
        final Sinks.One<String> value = Sinks.one();
    }

    static class Quotes {

        private final Quote quote;

        Quotes(Quote quote) {
            this.quote = quote;
        }

        @FetchOrCompute(key = "'quote:' + #symbol", ttl = "30s")
        public Mono<String> quote(String symbol) {
            quote.calls.incrementAndGet();
            return quote.value.asMono();
        }

        @FetchOrCompute(key = "'fresh-quote:' + #symbol", ttl = "30s", refreshAfter = "20s", staleIfError = "1m")
        public Mono<String> freshQuote(String symbol) {
            quote.calls.incrementAndGet();
            return quote.value.asMono();
        }
    }

    static class CountingObserver implements LocksObserver {

        final Map<String, AtomicInteger> results = new ConcurrentHashMap<>();

        @Override
        public void onCompute(ComputeResult result, long nanos) {
            results.computeIfAbsent(result.tag(), tag -> new AtomicInteger()).incrementAndGet();
        }
    }
}
