package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.locks.ComputeCache;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * The endpoint, the health and the meters of the real auto-configured beans, through real HTTP, under the
 * default access of the {@code locks} endpoint (read-only).
 */
@SpringBootTest(classes = ActuateTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "locks.endpoint.show-keys=always", "management.endpoints.web.exposure.include=health,metrics,locks",
        "management.endpoint.health.show-details=always" })
@AutoConfigureTestRestTemplate
class LocksActuatorWebIntegrationTests {

    @Autowired
    private TestRestTemplate http;

    @Autowired
    private LockRegistry registry;

    @Autowired
    private ComputeCache cache;

    @Autowired
    private MeterRegistry meterRegistry;

    @Test
    void heldLockShouldBeListedWithOwnerTokenAndIsoTimestamps() {
        try (Lease lease = registry.acquire(List.of("account:1", "orders/eu:7"))) {
            DocumentContext json = get("/actuator/locks", HttpStatus.OK);

            assertThat(json.read("$.backend", String.class)).isEqualTo("local");
            assertThat(json.read("$.locks[*].key", List.class)).containsExactlyInAnyOrder("account:1", "orders/eu:7");
            List<Map<String, Object>> matches = json.read("$.locks[?(@.key == 'account:1')]");
            Map<String, Object> lock = matches.get(0);
            assertThat(lock.get("owner").toString()).contains(Thread.currentThread().getName());
            assertThat(((Number) lock.get("fencingToken")).longValue()).isEqualTo(lease.fencingToken());
            assertThat(Instant.parse(lock.get("acquiredAt").toString()))
                    .isCloseTo(lease.acquiredAt(), within(1, ChronoUnit.SECONDS));
            assertThat(Instant.parse(lock.get("expiresAt").toString())).isAfter(lease.acquiredAt());
            assertThat(lock.get("stale")).isEqualTo(false);
            assertThat(json.read("$.computations", List.class)).isEmpty();
        }
    }

    @Test
    void keyWithColonsAndSlashesShouldBeFoundByItsPath() {
        try (Lease lease = registry.acquire(List.of("orders/eu:7"))) {
            DocumentContext json = get("/actuator/locks/orders/eu:7", HttpStatus.OK);

            assertThat(json.read("$.key", String.class)).isEqualTo("orders/eu:7");
            assertThat(json.read("$.fencingToken", Long.class)).isEqualTo(lease.fencingToken());
        }
    }

    @Test
    void unknownKeyShouldBeNotFound() {
        assertThat(http.getForEntity("/actuator/locks/account:404", String.class).getStatusCode())
                .isEqualTo(HttpStatus.NOT_FOUND);
    }

    @Test
    void deleteUnderTheDefaultAccessShouldBeRefused() {
        try (Lease lease = registry.acquire(List.of("account:2"))) {
            ResponseEntity<String> response = http.exchange("/actuator/locks/account:2", HttpMethod.DELETE, null,
                    String.class);

            assertThat(response.getStatusCode().is4xxClientError()).isTrue();
            assertThat(lease.isHeld()).isTrue();
        }
    }

    @Test
    void healthShouldBeUpWithLocksDetails() {
        try (Lease lease = registry.acquire(List.of("account:3"))) {
            DocumentContext json = get("/actuator/health", HttpStatus.OK);

            assertThat(json.read("$.components.locks.status", String.class)).isEqualTo("UP");
            assertThat(json.read("$.components.locks.details.backend", String.class)).isEqualTo("local");
            assertThat(json.read("$.components.locks.details.held", Integer.class)).isOne();
            assertThat(json.read("$.components.locks.details.stale", Integer.class)).isZero();
            assertThat(json.read("$.components.locks.details.computations", Integer.class)).isZero();
        }
    }

    @Test
    void metersShouldBeRecordedAfterUseWithTheirTags() {
        registry.acquire(List.of("account:4")).close();
        cache.fetchOrCompute("quote:ACME", Duration.ofMinutes(1), () -> 42);
        cache.fetchOrCompute("quote:ACME", Duration.ofMinutes(1), () -> 43);
        registry.sweep();

        assertThat(meterRegistry.get("locks.acquire").tags("backend", "local", "result", "acquired").timer().count())
                .isPositive();
        assertThat(meterRegistry.get("locks.compute").tags("backend", "local", "outcome", "computed").timer()
                .count()).isPositive();
        assertThat(meterRegistry.get("locks.compute").tags("backend", "local", "outcome", "hit").timer().count())
                .isPositive();
        assertThat(meterRegistry.get("locks.sweep").tag("backend", "local").timer().count()).isPositive();
        assertThat(meterRegistry.get("locks.held").tag("backend", "local").gauge()).isNotNull();
        assertThat(meterRegistry.get("locks.compute.in.flight").tag("backend", "local").gauge()).isNotNull();
        assertThat(meterRegistry.get("locks.stale.removed").tags("reason", "expired", "by", "sweep").counter())
                .isNotNull();
        assertThat(meterRegistry.get("locks.lease.lost").tag("backend", "local").counter()).isNotNull();

        DocumentContext json = get("/actuator/metrics/locks.acquire?tag=result:acquired", HttpStatus.OK);
        assertThat(json.read("$.measurements[?(@.statistic == 'COUNT')].value", List.class)).isNotEmpty();
        assertThat(json.read("$.availableTags[*].tag", List.class)).containsExactlyInAnyOrder("backend", "name");
    }

    private DocumentContext get(String path, HttpStatus expected) {
        ResponseEntity<String> response = http.getForEntity(path, String.class);
        assertThat(response.getStatusCode()).as(path).isEqualTo(expected);
        return JsonPath.parse(response.getBody());
    }
}
