package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/** The forced release, where the application opened writes with {@code access=unrestricted}. */
@SpringBootTest(classes = ActuateTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "locks.endpoint.show-keys=always", "management.endpoints.web.exposure.include=locks", "management.endpoint.locks.access=unrestricted" })
@AutoConfigureTestRestTemplate
class LocksEndpointWriteAccessWebIntegrationTests {

    @Autowired
    private TestRestTemplate http;

    @Autowired
    private LockRegistry registry;

    @Test
    void deleteShouldForceReleaseTheLock() {
        try (Lease lease = registry.acquire(List.of("orders/eu:8"))) {
            ResponseEntity<String> response = http.exchange("/actuator/locks/orders/eu:8", HttpMethod.DELETE, null,
                    String.class);

            assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
            assertThat(response.getBody()).contains("\"released\":true");
            assertThat(lease.isHeld()).isFalse();
            assertThat(registry.heldLock("orders/eu:8")).isEmpty();
            assertThat(http.getForEntity("/actuator/locks/orders/eu:8", String.class).getStatusCode())
                    .isEqualTo(HttpStatus.NOT_FOUND);
        }
    }

    @Test
    void deleteOfAKeyNotHeldShouldReleaseNothing() {
        ResponseEntity<String> response = http.exchange("/actuator/locks/account:404", HttpMethod.DELETE, null,
                String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(response.getBody()).contains("\"released\":false");
    }
}
