package dev.locks.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeCache;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.spring.reactive.ReactiveTestApplication.Counters;
import dev.locks.spring.reactive.ReactiveTestApplication.ReactiveService;
import dev.locks.support.AbstractLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * {@code @Locked} on {@code Mono} and {@code Flux} methods of a WebFlux application, over HTTP, with BlockHound
 * installed (the 'reactive' surefire run has its JUnit platform listener): a blocking call on a Reactor Netty
 * event loop or a parallel-scheduler thread fails the request, and with it the test. One subclass per backend.
 */
@SpringBootTest(classes = ReactiveTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.main.web-application-type=reactive", "locks.retries=infinity",
                "locks.wait-time=60s" })
@AutoConfigureWebTestClient(timeout = "60s")
abstract class ReactiveLockedWebTests {

    private static final int REQUESTS = 200;

    @Autowired
    WebTestClient client;

    @Autowired
    LockRegistry registry;

    @Autowired
    ComputeCache values;

    @Autowired
    Counters counters;

    @Autowired
    ReactiveService service;

    @LocalServerPort
    int port;

    private ConnectionProvider connections;

    @BeforeEach
    void reset() {
        counters.value = 0;
        counters.mostInside.set(0);
        counters.hangs.set(0);
        counters.computations.set(0);
        counters.hanging = new CountDownLatch(1);
        connections = ConnectionProvider.builder("concurrent").maxConnections(REQUESTS).pendingAcquireMaxCount(-1)
                .build();
    }

    @AfterEach
    void disposeConnections() {
        connections.dispose();
    }

    /** A client that opens up to 200 connections at once, for concurrent requests. */
    private WebClient concurrentClient() {
        return WebClient.builder().baseUrl("http://127.0.0.1:" + port)
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create(connections))).build();
    }

    /** A client without a connection pool: a cancelled request closes its connection, as a client that goes away. */
    private WebClient disconnectingClient() {
        return WebClient.builder().baseUrl("http://127.0.0.1:" + port)
                .clientConnector(new ReactorClientHttpConnector(HttpClient.newConnection())).build();
    }

    @Test
    void concurrentRequestsOnOneKeyShouldRunOneCriticalSectionAtATime() {
        WebClient web = concurrentClient();
        List<Integer> results = Flux.range(0, REQUESTS)
                .flatMap(i -> web.get().uri("/increment").retrieve().bodyToMono(Integer.class), REQUESTS)
                .collectList().block(Duration.ofSeconds(120));

        assertThat(results).hasSize(REQUESTS).doesNotHaveDuplicates();
        assertThat(counters.value).isEqualTo(REQUESTS);
        assertThat(counters.mostInside).hasValue(1);
        assertFree("counter");
    }

    @Test
    void concurrentStreamsOnOneKeyShouldRunOneStreamAtATime() {
        WebClient web = concurrentClient();
        int streams = 50;
        List<Integer> results = Flux.range(0, streams)
                .flatMap(i -> web.get().uri("/increment-thrice").retrieve().bodyToFlux(Integer.class), streams)
                .collectList().block(Duration.ofSeconds(120));

        assertThat(results).hasSize(3 * streams).doesNotHaveDuplicates();
        assertThat(counters.value).isEqualTo(3 * streams);
        assertThat(counters.mostInside).hasValue(1);
        assertFree("counter");
    }

    @Test
    void completedPublisherShouldHaveReleasedItsKeysBeforeTheResponse() {
        client.get().uri("/increment").exchange().expectStatus().isOk().expectBody(Integer.class).isEqualTo(1);

        assertFree("counter");
    }

    @Test
    void failedPublisherShouldHaveReleasedItsKeysBeforeTheResponse() {
        client.get().uri("/fail").exchange().expectStatus().is5xxServerError();

        assertFree("failing");
    }

    @Test
    void publisherShouldSeeItsLeaseInItsContext() {
        client.get().uri("/lease").exchange().expectStatus().isOk().expectBody(String.class)
                .isEqualTo("[lease:a] held=true");
        assertThat(service.leaseAsStream("b").collectList().block(Duration.ofSeconds(30)))
                .containsExactly("[lease:b] held=true", "[lease:b] held=true");
        assertThat(ReactiveLease.current().blockOptional(Duration.ofSeconds(5))).isEmpty();
    }

    @Test
    void clientThatDisconnectsShouldReleaseTheKeys() throws InterruptedException {
        Disposable request = disconnectingClient().get().uri("/hang").retrieve().bodyToMono(String.class).subscribe();
        assertThat(counters.hanging.await(30, TimeUnit.SECONDS)).isTrue();
        assertHeld("hanging");

        request.dispose();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertFree("hanging"));
    }

    @Test
    void streamClientThatDisconnectsShouldReleaseTheKeys() throws InterruptedException {
        Disposable request = disconnectingClient().get().uri("/hang-stream").retrieve().bodyToFlux(Long.class)
                .subscribe();
        assertThat(counters.hanging.await(30, TimeUnit.SECONDS)).isTrue();
        assertHeld("hanging-stream");

        request.dispose();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertFree("hanging-stream"));
    }

    @Test
    void subscriberThatCancelsWhileWaitingShouldLeaveTheKeysFree() {
        Lease holder = registry.acquire(List.of("hanging"));
        Disposable subscription;
        try {
            subscription = service.hang().subscribe();
            await().atMost(Duration.ofSeconds(30)).until(this::someoneWaitsForALock);
            subscription.dispose();
        }
        finally {
            holder.close();
        }

        // the waiter gets the keys once the holder is gone; cancelled, it must give them back at once
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertFree("hanging"));
        assertThat(counters.hangs).hasValue(0);
    }

    @Test
    void resubscriptionShouldTakeTheKeysAgain() {
        Mono<Integer> once = service.increment();

        assertThat(once.repeat(4).collectList().block(Duration.ofSeconds(30))).containsExactly(1, 2, 3, 4, 5);
        assertFree("counter");
    }

    @Test
    void stampedeOfSubscribersShouldComputeTheValueOnce() {
        String symbol = "ACME-" + System.nanoTime();
        WebClient web = concurrentClient();
        List<String> quotes = Flux.range(0, REQUESTS)
                .flatMap(i -> web.get().uri("/quotes/{symbol}", symbol).retrieve().bodyToMono(String.class), REQUESTS)
                .collectList().block(Duration.ofSeconds(120));

        assertThat(quotes).hasSize(REQUESTS).containsOnly(symbol + "#1");
        assertThat(counters.computations).hasValue(1);
        client.get().uri("/quotes/{symbol}", symbol).exchange().expectBody(String.class).isEqualTo(symbol + "#1");
        assertThat(counters.computations).hasValue(1);
    }

    @Test
    void computerWhoseSubscriberCancelsShouldStillComputeForItsWaiters() {
        String symbol = "LEFT-" + System.nanoTime();
        Disposable computer = service.lateQuote(symbol).subscribe();
        await().atMost(Duration.ofSeconds(30)).until(() -> counters.computations.get() == 0
                && !values.computations().isEmpty());
        CompletableFuture<String> waiter = service.lateQuote(symbol).toFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> values.computations().stream()
                .anyMatch(computation -> computation.waiters() > 0));

        computer.dispose(); // its client went away: the computation is the waiter's too

        assertThat(waiter).succeedsWithin(Duration.ofSeconds(30)).isEqualTo(symbol + "#1");
        assertThat(service.lateQuote(symbol).block(Duration.ofSeconds(30))).isEqualTo(symbol + "#1");
        assertThat(counters.computations).hasValue(1);
    }

    @Test
    void failedOrEmptyComputationShouldStoreNothing() {
        String symbol = "BROKEN-" + System.nanoTime();
        List<Throwable> failures = Flux.range(0, 20)
                .flatMap(i -> service.brokenQuote(symbol, false).map(Object.class::cast).onErrorResume(Mono::just), 20)
                .cast(Throwable.class).collectList().block(Duration.ofSeconds(60));
        assertThat(failures).hasSize(20).allSatisfy(failure -> assertThat(failure).hasMessage("no quote for " + symbol));
        int failed = counters.computations.get();
        assertThat(failed).as("failed computations, each shared by the subscribers waiting for it").isBetween(1, 20);

        assertThat(service.brokenQuote(symbol, true).blockOptional(Duration.ofSeconds(30))).isEmpty();
        assertThat(service.brokenQuote(symbol, true).blockOptional(Duration.ofSeconds(30))).isEmpty();
        assertThat(counters.computations).as("a failure and an empty Mono store nothing").hasValue(failed + 2);
    }

    /** Whether a thread of the starter's wait scheduler is parked in the engine's wait for a lock. */
    /** Whether a subscription waits for a lock: an asynchronous acquire is pending (it holds no thread to look for). */
    boolean someoneWaitsForALock() {
        return ((AbstractLockRegistry) registry).asyncAcquiresPending() > 0;
    }

    private void assertFree(String key) {
        Optional<Lease> lease = registry.tryAcquire(List.of(key));
        assertThat(lease).as("key '%s' is free", key).isPresent();
        lease.get().close();
    }

    private void assertHeld(String key) {
        Optional<Lease> lease = registry.tryAcquire(List.of(key));
        lease.ifPresent(Lease::close);
        assertThat(lease).as("key '%s' is held", key).isEmpty();
    }
}
