package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * The endpoint under its defaults but a small {@code locks.endpoint.max-listed} (issue 11, observation 2): a
 * bounded answer that says it was truncated, {@code ?limit=N} for fewer, keys hidden from an anonymous caller,
 * and a lookup by key that tells such a caller nothing about which keys are held.
 */
@SpringBootTest(classes = ActuateTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "management.endpoints.web.exposure.include=locks", "locks.endpoint.max-listed=5" })
@AutoConfigureTestRestTemplate
class LocksEndpointDefaultsWebIntegrationTests {

    private static final int HELD = 12;

    @Autowired
    private TestRestTemplate http;

    @Autowired
    private LockRegistry registry;

    private final List<Lease> leases = new ArrayList<>();

    @BeforeEach
    void holdLocks() {
        for (int i = 0; i < HELD; i++) {
            leases.add(registry.acquire(List.of("customer:" + i + "@example.com")));
        }
    }

    @AfterEach
    void release() {
        leases.forEach(Lease::close);
    }

    @Test
    void listingShouldStopAtMaxListedAndSaySo() {
        DocumentContext json = JsonPath.parse(http.getForObject("/actuator/locks", String.class));

        assertThat(json.read("$.locks", List.class)).hasSize(5);
        assertThat(json.read("$.truncated", Boolean.class)).isTrue();
    }

    @Test
    void limitShouldAskForFewerButNeverMoreThanMaxListed() {
        assertThat(JsonPath.parse(http.getForObject("/actuator/locks?limit=2", String.class))
                .read("$.locks", List.class)).hasSize(2);
        assertThat(JsonPath.parse(http.getForObject("/actuator/locks?limit=500", String.class))
                .read("$.locks", List.class)).hasSize(5);
    }

    @Test
    void keysShouldBeHiddenFromAnAnonymousCallerByDefault() {
        String body = http.getForObject("/actuator/locks", String.class);

        assertThat(body).doesNotContain("example.com");
        assertThat(JsonPath.parse(body).read("$.locks[*].key", List.class)).containsOnly(LocksEndpoint.MASK);
    }

    @Test
    void lookupOfAHiddenKeyShouldAnswerTheSameWhetherItIsHeldOrNot() {
        ResponseEntity<String> held = http.getForEntity("/actuator/locks/customer:1@example.com", String.class);
        ResponseEntity<String> free = http.getForEntity("/actuator/locks/customer:999@example.com", String.class);

        assertThat(held.getStatusCode()).isEqualTo(free.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(strip(held.getBody())).isEqualTo(strip(free.getBody()));
        assertThat(strip(held.getBody())).doesNotContain("fencingToken");
    }

    /** The answer without what differs on every request (timestamp, path). */
    private static String strip(String body) {
        return body == null ? "" : body.replaceAll("\"timestamp\":\"[^\"]*\"", "").replaceAll("\"path\":\"[^\"]*\"", "");
    }
}
