package dev.locks.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.sample.jobs.BalanceReportJob;
import dev.locks.sample.quotes.QuoteService;
import dev.locks.sample.rates.RateService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

/**
 * Two instances of the sample on the {@code redis} profile, on one redis-server of the test's own, as the
 * README runs them: they share locks and computed quotes, their scheduled balance report runs on one instance at a
 * time, and an outage is a 503 until Redis is back.
 */
class TwoInstancesOnRedisTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static ConfigurableApplicationContext first;

    private static ConfigurableApplicationContext second;

    /** The balance report's holdAtLeast in these instances: no two runs closer than this. */
    private static final Duration REPORT_HOLD = Duration.ofSeconds(2);

    private static long started;

    /** How many times Redis was emptied under the running instances: before each test, and by the outage test. */
    private static int redisEmptied;

    @BeforeEach
    void countRedisEmptied() { // after the extension's own beforeEach, which flushed Redis
        redisEmptied++;
    }

    @BeforeAll
    static void startInstances() {
        started = System.nanoTime();
        first = start("first");
        second = start("second");
    }

    @AfterAll
    static void stopInstances() {
        for (ConfigurableApplicationContext instance : new ConfigurableApplicationContext[] { first, second }) {
            if (instance != null) {
                instance.close();
            }
        }
    }

    private static ConfigurableApplicationContext start(String name) {
        return new SpringApplicationBuilder(SampleApplication.class).profiles("redis").run("--server.port=0",
                "--spring.data.redis.port=" + redis.port(),
                "--spring.datasource.url=jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1",
                "--spring.application.name=sample-" + name, "--sample.report.interval=200ms",
                "--sample.report.hold-at-least=" + REPORT_HOLD.toMillis() + "ms");
    }

    @Test
    void bothInstancesShouldLockOnRedisAndBeHealthy() {
        for (ConfigurableApplicationContext instance : List.of(first, second)) {
            assertThat(get(instance, "/actuator/locks").read("$.backend", String.class)).isEqualTo("redis");
            DocumentContext health = get(instance, "/actuator/health");
            assertThat(health.read("$.components.locks.status", String.class)).isEqualTo("UP");
            assertThat(health.read("$.components.redis.status", String.class)).isEqualTo("UP");
        }
    }

    @Test
    void accountHeldOnOneInstanceShouldMakeATransferOnTheOtherWait() {
        DocumentContext hold = post(first, "/accounts/1/hold?seconds=2", null);
        long token = hold.read("$.fencingToken", Long.class);

        DocumentContext seenByFirst = get(first, "/actuator/locks/account:1");
        DocumentContext seenBySecond = get(second, "/actuator/locks/account:1");
        assertThat(seenBySecond.read("$.fencingToken", Long.class)).isEqualTo(token);
        assertThat(seenBySecond.read("$.owner", String.class)).contains("lock-holder-")
                .isEqualTo(seenByFirst.read("$.owner", String.class));

        long started = System.nanoTime();
        DocumentContext transfer = post(second, "/transfers", Map.of("from", 2, "to", 1, "amount", "1.00"));
        Duration waited = Duration.ofNanos(System.nanoTime() - started);

        assertThat(waited).isGreaterThan(Duration.ofMillis(1000));
        assertThat(transfer.read("$.fencingToken", Long.class)).isGreaterThan(token);
        assertThat(get(first, "/actuator/locks").read("$.locks[?(@.key =~ /account:.*/)]", List.class)).isEmpty();
    }

    @Test
    void balanceReportShouldRunOnOneInstanceAtATimeAndShowInTheEndpointOfBoth() {
        // between a run's held-over lock expiring and the next run taking it (and after the extension empties Redis)
        // the key is free, and the endpoint answers 404 for a free key: that is a moment to look again, not a failure
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(HttpClientErrorException.NotFound.class).untilAsserted(() -> {
            DocumentContext seenByFirst = get(first, "/actuator/locks/job:balance-report");
            DocumentContext seenBySecond = get(second, "/actuator/locks/job:balance-report");
            assertThat(seenBySecond.read("$.fencingToken", Long.class))
                    .isEqualTo(seenByFirst.read("$.fencingToken", Long.class));
            assertThat(seenBySecond.read("$.owner", String.class)).as("the instance that ran it last")
                    .isEqualTo(seenByFirst.read("$.owner", String.class))
                    .containsAnyOf("sample-first", "sample-second");
        });
        int runs = reportRuns();
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        // the extension empties Redis before every test (and the outage test restarts it empty) while these two
        // instances run on: each emptying drops the job's held-over key, so allow one early run per emptying
        assertThat(runs).isPositive()
                .as("at most one run per holdAtLeast since the instances started, on both together")
                .isLessThanOrEqualTo((int) (elapsed.toMillis() / REPORT_HOLD.toMillis()) + 1 + redisEmptied);
    }

    @Test
    void quoteAskedOnBothInstancesAtOnceShouldBeComputedOnce() throws Exception {
        long before = computations();

        List<String> quotes = getOnBothAtOnce("/quotes/SHARED", 16);

        assertThat(new HashSet<>(quotes)).hasSize(1);
        assertThat(computations() - before).isOne();
    }

    @Test
    void rateMissedOnBothInstancesAtOnceShouldBeLoadedOnceAndCachedByEach() throws Exception {
        long before = rateLoads();

        List<String> rates = getOnBothAtOnce("/rates/XAU", 16);

        assertThat(new HashSet<>(rates)).hasSize(1);
        assertThat(rateLoads() - before).isOne();
        // each instance's own Caffeine cache holds it now: no load, no wait
        assertThat(http(second).get().uri("/rates/XAU").retrieve().body(String.class)).isEqualTo(rates.get(0));
        assertThat(rateLoads() - before).isOne();
    }

    @Test
    void redisOutageShouldAnswerServiceUnavailableUntilRedisIsBack() {
        redis.server().stop();

        ResponseEntity<String> refused = http(first).post().uri("/transfers").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("from", 1, "to", 3, "amount", "1.00")).retrieve()
                .onStatus(status -> true, (request, response) -> { })
                .toEntity(String.class);
        assertThat(refused.getStatusCode().value()).as(refused.getBody()).isEqualTo(503);
        ResponseEntity<String> health = http(first).get().uri("/actuator/health").retrieve()
                .onStatus(status -> true, (request, response) -> { })
                .toEntity(String.class);
        assertThat(health.getStatusCode().value()).isEqualTo(503);
        assertThat(JsonPath.parse(health.getBody()).read("$.components.locks.status", String.class)).isEqualTo("DOWN");

        redis.server().restart();
        redisEmptied++;

        // until the client has reconnected, the health answers 503 (Spring's own redis contributor), which throws
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().untilAsserted(() ->
                assertThat(get(first, "/actuator/health").read("$.components.locks.status", String.class))
                        .isEqualTo("UP"));
        assertThat(post(first, "/transfers", Map.of("from", 1, "to", 3, "amount", "1.00"))
                .read("$.fencingToken", Long.class)).isPositive();
    }

    private static int reportRuns() {
        return first.getBean(BalanceReportJob.class).runs() + second.getBean(BalanceReportJob.class).runs();
    }

    /** {@code callers} GETs of {@code path}, alternately on each instance, started together; their bodies. */
    private static List<String> getOnBothAtOnce(String path, int callers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                ConfigurableApplicationContext instance = (i % 2 == 0) ? first : second;
                answers.add(pool.submit(() -> {
                    start.await();
                    return http(instance).get().uri(path).retrieve().body(String.class);
                }));
            }
            start.countDown();
            List<String> bodies = new ArrayList<>();
            for (Future<String> answer : answers) {
                bodies.add(answer.get(1, TimeUnit.MINUTES));
            }
            return bodies;
        }
        finally {
            pool.shutdownNow();
        }
    }

    private static long computations() {
        return first.getBean(QuoteService.class).computations() + second.getBean(QuoteService.class).computations();
    }

    private static long rateLoads() {
        return first.getBean(RateService.class).loads() + second.getBean(RateService.class).loads();
    }

    private static DocumentContext get(ConfigurableApplicationContext instance, String path) {
        return JsonPath.parse(http(instance).get().uri(path).retrieve().body(String.class));
    }

    private static DocumentContext post(ConfigurableApplicationContext instance, String path, Object body) {
        RestClient.RequestBodySpec request = http(instance).post().uri(path).contentType(MediaType.APPLICATION_JSON);
        if (body != null) {
            request.body(body);
        }
        return JsonPath.parse(request.retrieve().body(String.class));
    }

    private static RestClient http(ConfigurableApplicationContext instance) {
        return RestClient.create("http://localhost:" + instance.getEnvironment().getProperty("local.server.port"));
    }
}
