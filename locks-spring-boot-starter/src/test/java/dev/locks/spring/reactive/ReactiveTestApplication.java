package dev.locks.spring.reactive;

import dev.locks.Lease;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A WebFlux application (Reactor Netty) over a reactive service with {@code @Locked} methods, for the tests over
 * HTTP. Its critical sections read a value, hop to another thread (a timer of Reactor's parallel scheduler) and
 * write it back, so that two of them at once lose an update.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ReactiveTestApplication {

    @Bean
    Counters counters() {
        return new Counters();
    }

    @Bean
    ReactiveService reactiveService(Counters counters) {
        return new ReactiveService(counters);
    }

    /** What the critical sections share, unguarded: only the locks keep it right. */
    static final class Counters {

        /** Read and written under the lock 'counter' only; neither atomic nor volatile on purpose. */
        int value;

        /** How many critical sections run at this moment, and the most ever seen. */
        final AtomicInteger inside = new AtomicInteger();

        final AtomicInteger mostInside = new AtomicInteger();

        /** How many times a quote was computed (its Mono subscribed to). */
        final AtomicInteger computations = new AtomicInteger();

        /** How many times the hanging method's publisher was subscribed to (its body ran). */
        final AtomicInteger hangs = new AtomicInteger();

        /** How many hung computations were subscribed to, and how many of those subscriptions were cancelled. */
        final AtomicInteger hungComputations = new AtomicInteger();

        final AtomicInteger hungCancelled = new AtomicInteger();

        /** Counted down when a hanging publisher runs under its lock. */
        volatile CountDownLatch hanging = new CountDownLatch(1);

        void enter() {
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        }

        void leave() {
            inside.decrementAndGet();
        }
    }

    static class ReactiveService {

        private final Counters counters;

        ReactiveService(Counters counters) {
            this.counters = counters;
        }

        /** Read, hop threads, write: exact only one at a time. */
        @Locked(keys = "'counter'")
        public Mono<Integer> increment() {
            return readHopAndWrite();
        }

        /** Three elements, each a read, a hop and a write of the same counter as {@link #increment}. */
        @Locked(keys = "'counter'")
        public Flux<Integer> incrementThrice() {
            return Flux.range(0, 3).concatMap(i -> readHopAndWrite());
        }

        private Mono<Integer> readHopAndWrite() {
            return Mono.fromSupplier(() -> {
                counters.enter();
                return counters.value;
            }).delayElement(Duration.ofMillis(1)).map(read -> {
                counters.value = read + 1;
                counters.leave();
                return read + 1;
            });
        }

        /** Fails after a hop, under the lock. */
        @Locked(keys = "'failing'")
        public Mono<String> fail() {
            return Mono.delay(Duration.ofMillis(1)).then(Mono.error(new IllegalStateException("failed on purpose")));
        }

        /** Never completes: only a cancellation ends it. */
        @Locked(keys = "'hanging'")
        public Mono<String> hang() {
            return Mono.<String>never().doOnSubscribe(subscription -> {
                counters.hangs.incrementAndGet();
                counters.hanging.countDown();
            });
        }

        /** Never completes either, as a stream. */
        @Locked(keys = "'hanging-stream'")
        public Flux<Long> hangAsStream() {
            return Flux.interval(Duration.ofMillis(5)).doOnSubscribe(subscription -> counters.hanging.countDown());
        }

        /** The lease of the running publisher, as it sees it in its context. */
        @Locked(keys = "'lease:' + #id")
        public Mono<String> lease(String id) {
            return ReactiveLease.current().delayElement(Duration.ofMillis(1)).map(ReactiveService::describe);
        }

        /** The lease of the running stream, in each of its elements. */
        @Locked(keys = "'lease:' + #id")
        public Flux<String> leaseAsStream(String id) {
            return Flux.range(0, 2).concatMap(i -> ReactiveLease.current().map(ReactiveService::describe));
        }

        /** A slow quote: one computation per miss, whatever the number of subscribers. */
        @FetchOrCompute(key = "'quote:' + #symbol", ttl = "1h")
        public Mono<String> quote(String symbol) {
            return Mono.delay(Duration.ofMillis(300)).map(tick -> symbol + "#" + counters.computations.incrementAndGet());
        }

        /**
         * A computation that never completes, as a {@code WebClient} call without a response timeout to a server
         * that never answers: only a cancellation ends it.
         */
        @FetchOrCompute(key = "'hung:' + #symbol", ttl = "1h")
        public Mono<String> hungQuote(String symbol) {
            return Mono.<String>never().doOnSubscribe(subscription -> counters.hungComputations.incrementAndGet())
                    .doOnCancel(counters.hungCancelled::incrementAndGet);
        }

        /** A quote that takes its time: long enough for a test to cancel its subscriber while another waits. */
        @FetchOrCompute(key = "'late:' + #symbol", ttl = "1h")
        public Mono<String> lateQuote(String symbol) {
            return Mono.delay(Duration.ofSeconds(3))
                    .map(tick -> symbol + "#" + counters.computations.incrementAndGet());
        }

        /** A computation that fails after a hop, or finds nothing (an empty Mono), as asked. */
        @FetchOrCompute(key = "'broken:' + #symbol", ttl = "1h")
        public Mono<String> brokenQuote(String symbol, boolean empty) {
            return Mono.delay(Duration.ofMillis(1)).flatMap(tick -> {
                counters.computations.incrementAndGet();
                return empty ? Mono.<String>empty() : Mono.error(new IllegalStateException("no quote for " + symbol));
            });
        }

        private static String describe(Lease lease) {
            return lease.keys() + " held=" + lease.isHeld();
        }
    }

    /** A member class of the configuration, and a {@code @Component}: registered as a bean with it. */
    @RestController
    static class ReactiveController {

        private final ReactiveService service;

        ReactiveController(ReactiveService service) {
            this.service = service;
        }

        @GetMapping("/increment")
        Mono<Integer> increment() {
            return service.increment();
        }

        @GetMapping("/increment-thrice")
        Flux<Integer> incrementThrice() {
            return service.incrementThrice();
        }

        @GetMapping("/fail")
        Mono<String> fail() {
            return service.fail();
        }

        @GetMapping("/hang")
        Mono<String> hang() {
            return service.hang();
        }

        @GetMapping("/hang-stream")
        Flux<Long> hangAsStream() {
            return service.hangAsStream();
        }

        @GetMapping("/quotes/{symbol}")
        Mono<String> quote(@PathVariable String symbol) {
            return service.quote(symbol);
        }

        @GetMapping("/hung-quotes/{symbol}")
        Mono<String> hungQuote(@PathVariable String symbol) {
            return service.hungQuote(symbol);
        }

        @GetMapping("/lease")
        Mono<String> lease() {
            return service.lease("a");
        }
    }
}
