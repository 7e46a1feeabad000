package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@code locks.endpoint.show-keys=never}: the endpoint shows the locks, not their keys. */
@SpringBootTest(classes = ActuateTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "management.endpoints.web.exposure.include=locks", "locks.endpoint.show-keys=never" })
@AutoConfigureTestRestTemplate
class LocksEndpointHiddenKeysWebIntegrationTests {

    @Autowired
    private TestRestTemplate http;

    @Autowired
    private LockRegistry registry;

    @Test
    void showKeysNeverShouldMaskTheKeys() {
        try (Lease lease = registry.acquire(List.of("customer:alice@example.com"))) {
            String body = http.getForObject("/actuator/locks", String.class);

            assertThat(body).doesNotContain("alice");
            assertThat(JsonPath.parse(body).read("$.locks[*].key", List.class)).containsExactly("******");
            assertThat(JsonPath.parse(body).read("$.locks[0].fencingToken", Long.class))
                    .isEqualTo(lease.fencingToken());
        }
    }
}
