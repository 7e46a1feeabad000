package dev.locks.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.support.AbstractLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/** {@code GET /accounts/{id}/audit}: a {@code @Locked} method returning {@code Mono}, in a Spring MVC application. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureTestRestTemplate
class AccountAuditTests {

    @Autowired
    private TestRestTemplate http;

    @Autowired
    private LockRegistry registry;

    @Test
    void auditShouldReadTheAccountUnderItsLockAndReleaseIt() {
        DocumentContext audit = audit(1);

        assertThat(audit.read("$.id", Long.class)).isOne();
        assertThat(audit.read("$.fencingToken", Long.class)).isPositive();
        assertThat(audit.read("$.balance", String.class)).isNotNull();
        try (Lease free = registry.tryAcquire(List.of("account:1")).orElseThrow()) {
            assertThat(free.isHeld()).isTrue();
        }
    }

    @Test
    void auditOfAHeldAccountShouldWaitForItsLock() throws Exception {
        CompletableFuture<DocumentContext> audit;
        long holderToken;
        try (Lease holder = registry.acquire(List.of("account:2"))) {
            holderToken = holder.fencingToken();
            audit = CompletableFuture.supplyAsync(() -> audit(2));
            await().atMost(Duration.ofSeconds(30)).until(this::someoneWaitsForALock);
            assertThat(audit).isNotDone();
        }

        assertThat(audit.get(30, TimeUnit.SECONDS).read("$.fencingToken", Long.class)).isGreaterThan(holderToken);
    }

    @Test
    void auditOfAnUnknownAccountShouldBeNotFound() {
        ResponseEntity<String> response = http.getForEntity("/accounts/99/audit", String.class);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
    }

    private DocumentContext audit(long id) {
        ResponseEntity<String> response = http.getForEntity("/accounts/" + id + "/audit", String.class);
        assertThat(response.getStatusCode()).as(response.getBody()).isEqualTo(HttpStatus.OK);
        return JsonPath.parse(response.getBody());
    }

    /** Whether a call waits for a lock: an asynchronous acquire is pending (it holds no thread to look for). */
    private boolean someoneWaitsForALock() {
        return ((AbstractLockRegistry) registry).asyncAcquiresPending() > 0;
    }
}
