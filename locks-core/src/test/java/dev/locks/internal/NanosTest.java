package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.local.LocalLockRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The engine's time arithmetic saturates at "never" instead of overflowing or throwing. */
class NanosTest {

    private static final Duration CENTURIES = Duration.ofDays(365L * 300); // past Long.MAX_VALUE nanoseconds

    @Test
    void durationsTooLongToCountShouldMeanNever() {
        assertThat(Nanos.of(Duration.ofSeconds(2))).isEqualTo(2_000_000_000L);
        assertThat(Nanos.of(CENTURIES)).isEqualTo(Nanos.NEVER);
        assertThat(Nanos.ofMillis(3)).isEqualTo(3_000_000L);
        assertThat(Nanos.ofMillis(Long.MAX_VALUE / 1_000)).isEqualTo(Nanos.NEVER);
    }

    @Test
    void additionShouldSaturate() {
        assertThat(Nanos.after(100, 5)).isEqualTo(105);
        assertThat(Nanos.after(-100, 5)).isEqualTo(-95);
        assertThat(Nanos.after(Long.MAX_VALUE - 5, 10)).isEqualTo(Nanos.NEVER);
        assertThat(Nanos.after(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(Nanos.NEVER);
    }

    @Test
    void millisecondsShouldRoundUpWithoutOverflow() {
        assertThat(Nanos.toMillisRoundedUp(1)).isEqualTo(1);
        assertThat(Nanos.toMillisRoundedUp(1_000_000)).isEqualTo(1);
        assertThat(Nanos.toMillisRoundedUp(1_000_001)).isEqualTo(2);
        assertThat(Nanos.toMillisRoundedUp(Long.MAX_VALUE - 1)).isEqualTo(Long.MAX_VALUE / 1_000_000 + 1);
        assertThat(RemoteLocks.leaseMillis(Long.MAX_VALUE - 1)).isPositive();
    }

    @Test
    void aLockTimeoutOfCenturiesShouldHoldAsAnInfiniteOne() throws Exception {
        try (LocalLockRegistry registry = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).build();
                Lease lease = registry.acquire(List.of("k"), AcquireOptions.defaults().withLockTimeout(CENTURIES)
                        .withWaitTime(CENTURIES))) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.expiresAt()).isEqualTo(Instant.MAX);
            // another thread (the holder's own would re-enter)
            assertThat(CompletableFuture.supplyAsync(() -> registry.tryAcquire(List.of("k")).isPresent())
                    .get(10, TimeUnit.SECONDS)).isFalse();
        }
    }
}
