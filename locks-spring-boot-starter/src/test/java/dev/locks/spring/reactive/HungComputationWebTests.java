package dev.locks.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeCache;
import dev.locks.spring.reactive.ReactiveTestApplication.Counters;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * {@code @FetchOrCompute} {@code Mono}s that never complete (a {@code WebClient} call without a response timeout),
 * more of them than the starter's wait scheduler has threads, over HTTP with BlockHound installed: a cached hit and
 * a free {@code @Locked} {@code Mono} still answer at once, each hung computation is cancelled at its compute
 * timeout (its caller gets an error, its key is free for the next caller), and the wait scheduler serves a burst of
 * calls afterwards. One subclass per backend.
 */
@SpringBootTest(classes = ReactiveTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.main.web-application-type=reactive", "locks.compute.timeout=2s",
                "locks.wait-time=30s" })
abstract class HungComputationWebTests {

    /** More hung computations than the wait scheduler has threads (20 on 2 cores). */
    private static final int HUNG = Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE + 5;

    /** How long a call may take on a loaded machine and still count as answered at once. */
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    @Autowired
    Counters counters;

    @Autowired
    ComputeCache values;

    @LocalServerPort
    int port;

    private ConnectionProvider connections;

    private WebClient web;

    @BeforeEach
    void connect() {
        counters.value = 0;
        counters.computations.set(0);
        counters.hungComputations.set(0);
        counters.hungCancelled.set(0);
        connections = ConnectionProvider.builder("hung").maxConnections(4 * HUNG).pendingAcquireMaxCount(-1).build();
        web = WebClient.builder().baseUrl("http://127.0.0.1:" + port)
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create(connections))).build();
    }

    @AfterEach
    void disconnect() {
        connections.dispose();
    }

    @Test
    void hungComputationsShouldNeitherHoldUpOtherCallsNorOutliveTheirComputeTimeout() throws Exception {
        String cached = "CACHED-" + System.nanoTime();
        String quote = get("/quotes/" + cached, Duration.ofSeconds(30));
        assertThat(quote).isEqualTo(cached + "#1");

        String hung = "HUNG-" + System.nanoTime() + "-";
        CompletableFuture<List<Integer>> statuses = Flux.range(0, HUNG)
                .flatMap(i -> web.get().uri("/hung-quotes/{symbol}", hung + i)
                        .exchangeToMono(response -> Mono.just(response.statusCode().value())), HUNG)
                .collectList().toFuture();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(counters.hungComputations)
                .as("hung computations running").hasValueGreaterThanOrEqualTo(HUNG - 5));

        assertThat(get("/quotes/" + cached, PROMPTLY)).as("a cached hit while the computations hang").isEqualTo(quote);
        assertThat(get("/increment", PROMPTLY)).as("a free @Locked Mono while the computations hang").isEqualTo("1");

        assertThat(statuses.get(60, TimeUnit.SECONDS)).as("every hung computation fails at its compute timeout")
                .hasSize(HUNG).containsOnly(500);
        assertThat(counters.hungComputations).as("each computed once").hasValue(HUNG);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(counters.hungCancelled)
                .as("hung subscriptions cancelled").hasValue(HUNG));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(values.computations())
                .as("computations in flight").isEmpty());

        // nothing of the scheduler stays taken: a burst of twice its size, of new computations and hits, all answer
        String burst = "BURST-" + System.nanoTime() + "-";
        int size = 2 * Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE;
        List<String> quotes = Flux.range(0, 2 * size)
                .flatMap(i -> web.get().uri("/quotes/{symbol}", i < size ? burst + i : cached).retrieve()
                        .bodyToMono(String.class), 2 * size)
                .collectList().block(Duration.ofSeconds(60));
        assertThat(quotes).hasSize(2 * size).filteredOn(each -> each.startsWith(cached)).hasSize(size)
                .containsOnly(quote);
        assertThat(quotes).filteredOn(each -> each.startsWith(burst)).hasSize(size).doesNotHaveDuplicates();

        // a hung key computes anew, and times out again: nothing was left of its first computation
        assertThat(web.get().uri("/hung-quotes/{symbol}", hung + 0).exchangeToMono(response -> Mono
                .just(response.statusCode().value())).block(Duration.ofSeconds(30))).isEqualTo(500);
        assertThat(counters.hungComputations).hasValue(HUNG + 1);
    }

    private String get(String uri, Duration within) {
        return web.get().uri(uri).retrieve().bodyToMono(String.class).block(within);
    }
}
