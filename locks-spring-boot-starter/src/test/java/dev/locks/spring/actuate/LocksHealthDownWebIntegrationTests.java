package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.locks.LockRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/** A backend that cannot be reached makes the {@code locks} health, and so the application's, DOWN. */
@SpringBootTest(classes = { ActuateTestApplication.class, LocksHealthDownWebIntegrationTests.Unreachable.class },
        webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
                "management.endpoints.web.exposure.include=health", "management.endpoint.health.show-details=always" })
@AutoConfigureTestRestTemplate
class LocksHealthDownWebIntegrationTests {

    @Autowired
    private TestRestTemplate http;

    @Test
    void unreachableBackendShouldBeDown() {
        ResponseEntity<String> response = http.getForEntity("/actuator/health", String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        DocumentContext json = JsonPath.parse(response.getBody());
        assertThat(json.read("$.components.locks.status", String.class)).isEqualTo("DOWN");
        assertThat(json.read("$.components.locks.details.backend", String.class)).isEqualTo("stub");
        assertThat(json.read("$.components.locks.details.error", String.class)).contains("LockUnavailableException");
    }

    /** The application's own registry, whose backend is down. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Unreachable {

        @Bean
        LockRegistry lockRegistry() {
            return new StubLockRegistry().unreachable();
        }
    }
}
