package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Computation;
import dev.locks.HeldLock;
import dev.locks.LockUnavailableException;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** The health contributor: UP with its details while the backend answers, DOWN only when it does not. */
class LocksHealthIndicatorTests {

    private static final Instant AT = Instant.parse("2025-01-02T03:04:05Z");

    @Test
    void reachableBackendShouldBeUpWithDetails() {
        StubLockRegistry registry = new StubLockRegistry()
                .with(new HeldLock("a", "t1", 1, AT, AT.plusSeconds(30), false));
        StubComputeCache cache = new StubComputeCache().with(new Computation("q", "t2", 0, AT));

        Health health = new LocksHealthIndicator(registry, cache, LocksBackendPing.NONE, new LastSweep()).health();

        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("backend", "stub").containsEntry("held", 1)
                .containsEntry("stale", 0).containsEntry("computations", 1);
    }

    @Test
    void staleLocksFoundByTheLastSweepShouldStillBeUp() {
        LastSweep lastSweep = new LastSweep();
        lastSweep.onSweep(2, 1_000);

        Health health = new LocksHealthIndicator(new StubLockRegistry(), null, LocksBackendPing.NONE, lastSweep)
                .health();

        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("held", 0).containsEntry("stale", 2)
                .containsEntry("computations", 0);
    }

    @Test
    void unreachableBackendShouldBeDownNamingTheBackend() {
        LocksBackendPing unreachable = () -> {
            throw new LockUnavailableException("stub backend unreachable", null);
        };

        Health health = new LocksHealthIndicator(new StubLockRegistry(), null, unreachable, new LastSweep()).health();

        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("backend", "stub").containsKey("error");
        assertThat(health.getDetails().get("error").toString()).contains("LockUnavailableException");
    }
}
