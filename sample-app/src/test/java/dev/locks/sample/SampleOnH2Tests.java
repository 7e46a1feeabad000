package dev.locks.sample;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.locks.jdbc.JdbcComputeCache;
import dev.locks.jdbc.JdbcLockRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;

/**
 * The sample on its 'jdbc' profile, as the getting-started page shows it: the JDBC backend on the application's
 * embedded H2, its schema created at startup, a {@code @Locked} transfer and a {@code @FetchOrCompute} quote going
 * through the database's tables.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureTestRestTemplate
@ActiveProfiles("jdbc")
class SampleOnH2Tests {

    @Autowired
    private TestRestTemplate http;

    @Autowired
    private ApplicationContext context;

    @Autowired
    private JdbcTemplate database;

    @Test
    void locksAndComputedValuesShouldLiveInTheEmbeddedH2() {
        assertThat(context.getBeansOfType(JdbcLockRegistry.class)).hasSize(1);
        assertThat(context.getBeansOfType(JdbcComputeCache.class)).hasSize(1);
        assertThat(get("/actuator/health").read("$.components.locks.details.backend", String.class)).isEqualTo("jdbc");

        DocumentContext first = post("/transfers", Map.of("from", 1, "to", 3, "amount", "1.00"));
        DocumentContext second = post("/transfers", Map.of("from", 3, "to", 1, "amount", "1.00"));
        assertThat(second.read("$.fencingToken", Long.class)).isGreaterThan(first.read("$.fencingToken", Long.class));

        DocumentContext quote = get("/quotes/H2CO");
        assertThat(get("/quotes/H2CO").read("$.computedAt", String.class))
                .isEqualTo(quote.read("$.computedAt", String.class));
        assertThat(database.queryForObject("SELECT COUNT(*) FROM locks_value", Long.class)).isOne();
    }

    @Test
    void stampedeShouldComputeTheQuoteOnceThroughTheDatabase() {
        DocumentContext report = post("/quotes/H2ST/stampede?callers=50", null);

        assertThat(report.read("$.computations", Integer.class)).isOne();
        assertThat(report.read("$.callersWithValue", Integer.class)).isEqualTo(50);
        assertThat(report.read("$.distinctValues", Integer.class)).isOne();
    }

    private DocumentContext get(String path) {
        ResponseEntity<String> response = http.getForEntity(path, String.class);
        assertThat(response.getStatusCode()).as(path).isEqualTo(HttpStatus.OK);
        return JsonPath.parse(response.getBody());
    }

    private DocumentContext post(String path, Object body) {
        ResponseEntity<String> response = http.postForEntity(path, body, String.class);
        assertThat(response.getStatusCode()).as(path).isEqualTo(HttpStatus.OK);
        return JsonPath.parse(response.getBody());
    }
}
