package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.HeldLock;
import dev.locks.LocksObserver.AcquireResult;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.LocksObserver.Remover;
import dev.locks.LocksObserver.StaleReason;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The meters: names and tags exactly as the contract states them, fed by the observer's events. */
class LocksMetricsTests {

    private static final Instant AT = Instant.parse("2025-01-02T03:04:05Z");

    private final StubLockRegistry registry = new StubLockRegistry()
            .with(new HeldLock("account:1", "t", 1, AT, AT.plusSeconds(30), false));

    private final StubComputeCache cache = new StubComputeCache();

    private final LocksMetrics metrics = new LocksMetrics(() -> registry, () -> cache);

    private final SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();

    @Test
    void eventsShouldBeRecordedWithTheirTags() {
        metrics.bindTo(meterRegistry);

        metrics.onAcquire(AcquireResult.ACQUIRED, TimeUnit.MILLISECONDS.toNanos(3));
        metrics.onAcquire(AcquireResult.TIMEOUT, 1);
        metrics.onStaleRemoved(StaleReason.DEAD_OWNER, Remover.SWEEP);
        metrics.onSweep(1, 5);
        metrics.onLeaseLost("account:1");
        metrics.onCompute(ComputeResult.WAITED, 7);

        assertThat(meterRegistry.get("locks.acquire").tags("backend", "stub", "result", "acquired").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3.0);
        assertThat(meterRegistry.get("locks.acquire").tag("result", "timeout").timer().count()).isOne();
        assertThat(meterRegistry.get("locks.stale.removed").tags("reason", "dead-owner", "by", "sweep").counter()
                .count()).isEqualTo(1.0);
        assertThat(meterRegistry.get("locks.sweep").tag("backend", "stub").timer().count()).isOne();
        assertThat(meterRegistry.get("locks.lease.lost").tag("backend", "stub").counter().count()).isEqualTo(1.0);
        assertThat(meterRegistry.get("locks.compute").tags("backend", "stub", "outcome", "waited").timer().count())
                .isOne();
    }

    @Test
    void bindingShouldCreateEveryMeterWithEveryTagValue() {
        metrics.bindTo(meterRegistry);

        assertThat(meterRegistry.get("locks.acquire").timers()).extracting(timer -> timer.getId().getTag("result"))
                .containsExactlyInAnyOrder("acquired", "timeout", "skipped", "error");
        assertThat(meterRegistry.get("locks.stale.removed").counters())
                .extracting(counter -> counter.getId().getTag("reason") + "/" + counter.getId().getTag("by"))
                .containsExactlyInAnyOrder("dead-owner/acquire", "dead-owner/sweep", "expired/acquire",
                        "expired/sweep");
        assertThat(meterRegistry.get("locks.compute").timers()).extracting(timer -> timer.getId().getTag("outcome"))
                .containsExactlyInAnyOrder("hit", "computed", "waited", "failed", "promoted", "unreadable", "refreshed",
                        "refresh-failed", "refresh-skipped", "stale");
        assertThat(meterRegistry.getMeters()).extracting(meter -> meter.getId().getName()).contains("locks.sweep",
                "locks.lease.lost", "locks.held", "locks.compute.in.flight");
    }

    @Test
    void noMeterShouldBeTaggedWithALockKey() {
        metrics.bindTo(meterRegistry);
        metrics.onLeaseLost("account:1");

        assertThat(meterRegistry.getMeters()).allSatisfy(meter -> {
            assertThat(meter.getId().getTag("backend")).isEqualTo("stub");
            assertThat(meter.getId().getTags()).noneMatch(tag -> tag.getValue().contains("account"));
        });
    }

    @Test
    void gaugesShouldReadTheRegistryAndTheCache() {
        metrics.bindTo(meterRegistry);

        assertThat(meterRegistry.get("locks.held").gauge().value()).isEqualTo(1.0);
        assertThat(meterRegistry.get("locks.compute.in.flight").gauge().value()).isZero();
    }

    @Test
    void unreachableBackendShouldMakeTheGaugeNaN() {
        metrics.bindTo(meterRegistry);
        registry.unreachable();

        assertThat(meterRegistry.get("locks.held").gauge().value()).isNaN();
    }

    @Test
    void eventsBeforeBindingShouldBeDropped() {
        metrics.onAcquire(AcquireResult.ACQUIRED, 1);
        metrics.bindTo(meterRegistry);

        assertThat(meterRegistry.get("locks.acquire").tag("result", "acquired").timer().count()).isZero();
    }

    @Test
    void everyBoundMeterRegistryShouldSeeEveryEvent() {
        SimpleMeterRegistry other = new SimpleMeterRegistry();
        metrics.bindTo(meterRegistry);
        metrics.bindTo(other);

        metrics.onAcquire(AcquireResult.ERROR, 1);

        assertThat(meterRegistry.get("locks.acquire").tag("result", "error").timer().count()).isOne();
        assertThat(other.get("locks.acquire").tag("result", "error").timer().count()).isOne();
    }

    @Test
    void missingRegistryAndCacheShouldCreateNoMeters() {
        LocksMetrics none = new LocksMetrics(() -> null, () -> null);
        none.bindTo(meterRegistry);

        none.onAcquire(AcquireResult.ACQUIRED, 1);
        none.onCompute(ComputeResult.HIT, 1);

        assertThat(meterRegistry.getMeters()).extracting(Meter::getId).isEmpty();
    }
}
