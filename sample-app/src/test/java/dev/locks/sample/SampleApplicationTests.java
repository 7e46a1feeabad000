package dev.locks.sample;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/** The sample application as its README shows it, over HTTP on a random port. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureTestRestTemplate
class SampleApplicationTests {

    private static final BigDecimal TOTAL = new BigDecimal("3000.00");

    @Autowired
    private TestRestTemplate http;

    @Autowired
    private ApplicationContext context;

    @Test
    void transferShouldMoveTheAmountUnderAFencingToken() {
        Map<Long, BigDecimal> before = balances();

        DocumentContext transfer = post("/transfers", Map.of("from", 1, "to", 3, "amount", "25.50"), HttpStatus.OK);

        assertThat(transfer.read("$.fencingToken", Long.class)).isPositive();
        Map<Long, BigDecimal> after = balances();
        assertThat(after.get(1L)).isEqualByComparingTo(before.get(1L).subtract(new BigDecimal("25.50")));
        assertThat(after.get(3L)).isEqualByComparingTo(before.get(3L).add(new BigDecimal("25.50")));
    }

    @Test
    void transferBeyondTheBalanceShouldBeRefusedAndChangeNothing() {
        Map<Long, BigDecimal> before = balances();

        post("/transfers", Map.of("from", 2, "to", 3, "amount", "1000000"), HttpStatus.UNPROCESSABLE_CONTENT);

        assertThat(balances()).isEqualTo(before);
    }

    @Test
    void concurrentTransfersBothWaysShouldConserveTheTotal() throws Exception {
        int threads = 8;
        int transfersEach = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<HttpStatus>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long from = (t % 2 == 0) ? 1 : 2;
                long to = 3 - from;
                results.add(pool.submit(() -> {
                    start.await();
                    List<HttpStatus> statuses = new ArrayList<>();
                    for (int i = 0; i < transfersEach; i++) {
                        statuses.add(HttpStatus.valueOf(http.postForEntity("/transfers",
                                Map.of("from", from, "to", to, "amount", "7.00"), String.class).getStatusCode()
                                .value()));
                    }
                    return statuses;
                }));
            }
            start.countDown();
            for (Future<List<HttpStatus>> result : results) {
                assertThat(result.get(60, TimeUnit.SECONDS)).containsOnly(HttpStatus.OK);
            }
        }
        finally {
            pool.shutdownNow();
        }

        DocumentContext accounts = get("/accounts");
        assertThat(new BigDecimal(accounts.read("$.total").toString())).isEqualByComparingTo(TOTAL);
        assertThat(balances().values()).allSatisfy(balance -> assertThat(balance).isNotNegative());
        assertThat(get("/actuator/locks").read("$.locks[?(@.key =~ /account:.*/)]", List.class)).isEmpty();
    }

    @Test
    void stampedeShouldComputeTheQuoteOnceForEveryCaller() {
        DocumentContext report = post("/quotes/ACME/stampede?callers=100", null, HttpStatus.OK);

        assertThat(report.read("$.computations", Integer.class)).isOne();
        assertThat(report.read("$.callersWithValue", Integer.class)).isEqualTo(100);
        assertThat(report.read("$.distinctValues", Integer.class)).isOne();
    }

    @Test
    void heldAccountShouldShowInTheEndpointUntilReleased() {
        DocumentContext hold = post("/accounts/3/hold?seconds=1", null, HttpStatus.OK);
        long token = hold.read("$.fencingToken", Long.class);

        DocumentContext lock = get("/actuator/locks/account:3");
        assertThat(lock.read("$.fencingToken", Long.class)).isEqualTo(token);
        assertThat(lock.read("$.owner", String.class)).contains("lock-holder-");

        DocumentContext transfer = post("/transfers", Map.of("from", 3, "to", 1, "amount", "1.00"), HttpStatus.OK);
        assertThat(transfer.read("$.fencingToken", Long.class)).isGreaterThan(token);
    }

    @Test
    void healthShouldShowTheLocksContributor() {
        DocumentContext health = get("/actuator/health");

        assertThat(health.read("$.components.locks.status", String.class)).isEqualTo("UP");
        assertThat(health.read("$.components.locks.details.backend", String.class)).isEqualTo("local");
    }

    @Test
    void defaultRunShouldNeedNoRedisThoughSpringDataRedisIsOnTheClasspath() {
        assertThat(context.getBeanNamesForType(RedisConnectionFactory.class)).isEmpty();
        Map<String, Object> components = get("/actuator/health").read("$.components");
        assertThat(components).containsKey("locks").doesNotContainKey("redis");
    }

    private Map<Long, BigDecimal> balances() {
        List<Map<String, Object>> accounts = get("/accounts").read("$.accounts");
        return accounts.stream().collect(Collectors.toMap(
                account -> ((Number) account.get("id")).longValue(),
                account -> new BigDecimal(account.get("balance").toString())));
    }

    private DocumentContext get(String path) {
        ResponseEntity<String> response = http.getForEntity(path, String.class);
        assertThat(response.getStatusCode()).as(path).isEqualTo(HttpStatus.OK);
        return JsonPath.parse(response.getBody());
    }

    private DocumentContext post(String path, Object body, HttpStatus expected) {
        ResponseEntity<String> response = http.postForEntity(path, body, String.class);
        assertThat(response.getStatusCode()).as(path + ": " + response.getBody()).isEqualTo(expected);
        return JsonPath.parse(response.getBody());
    }
}
