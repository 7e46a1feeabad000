package dev.locks.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.contract.Threads;
import dev.locks.test.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The watchdog never renews or revives a lease that ran out (SPEC section 3; issue 9, observation 2), and renews
 * a lease handed to async work like any other while it is open (SPEC section 2; issue 27, observation 11).
 */
class LocalLeaseTest {

    private final ManualClock clock = new ManualClock();
    private final Threads threads = new Threads();
    private LocalLockRegistry registry;

    @AfterEach
    void tearDown() {
        threads.close();
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void oneKeyLeaseShouldRunOutAfterItsOwnTimeoutWhetherTheDefaultOrNot() {
        registry = LocalLockRegistry.builder().clock(clock).cleanupInterval(Duration.ZERO)
                .defaultOptions(AcquireOptions.defaults().withLockTimeout(Duration.ofSeconds(10))).build();
        Lease byDefault = registry.acquire(List.of("a"));
        Lease ofItsOwn = registry.acquire(List.of("b"), AcquireOptions.defaults().withLockTimeout(Duration.ofSeconds(4)));
        assertThat(Duration.between(byDefault.acquiredAt(), byDefault.expiresAt())).isEqualTo(Duration.ofSeconds(10));
        assertThat(Duration.between(ofItsOwn.acquiredAt(), ofItsOwn.expiresAt())).isEqualTo(Duration.ofSeconds(4));
        clock.advance(Duration.ofSeconds(4));
        assertThat(ofItsOwn.isHeld()).isFalse();
        assertThat(byDefault.isHeld()).isTrue();
        clock.advance(Duration.ofSeconds(6));
        assertThat(byDefault.isHeld()).isFalse();
        assertThat(registry.tryAcquire(List.of("a"))).as("taken from the lease that ran out").isPresent();
    }

    @Test
    void watchdogShouldNeverReviveALeaseThatRanOut() throws Exception {
        registry = LocalLockRegistry.builder().clock(clock).watchdog(true).cleanupInterval(Duration.ZERO).build();
        Lease expired = registry.acquire(List.of("old"),
                AcquireOptions.defaults().withLockTimeout(Duration.ofSeconds(30)));
        clock.advance(Duration.ofSeconds(30)); // ran out exactly now; the holder (this thread) is alive
        Instant expiredAt = expired.expiresAt();
        assertThat(expired.isHeld()).isFalse();

        Lease live = registry.acquire(List.of("live"),
                AcquireOptions.defaults().withLockTimeout(Duration.ofMillis(600)));
        Instant liveEnd = live.expiresAt();
        clock.advance(Duration.ofMillis(300));
        await().atMost(Threads.BOUND).until(() -> live.expiresAt().isAfter(liveEnd)); // a watchdog pass ran

        assertThat(expired.isHeld()).as("not revived").isFalse();
        assertThat(expired.expiresAt()).isEqualTo(expiredAt);
        Optional<Lease> other = threads.run(() -> registry.tryAcquire(List.of("old")));
        assertThat(other).as("another thread takes the key that ran out").isPresent();
        other.get().close();
        expired.close();
        live.close();
        assertThat(registry.heldLocks()).isEmpty();
    }

    @Test
    void watchdogShouldRenewADetachedLeaseWhileItIsOpenEvenAfterItsThreadEnded() throws Exception {
        registry = LocalLockRegistry.builder().clock(clock).watchdog(true).cleanupInterval(Duration.ZERO).build();
        Lease[] handedOver = new Lease[1];
        Thread acquirer = new Thread(() -> {
            handedOver[0] = registry.acquire(List.of("async"),
                    AcquireOptions.defaults().withLockTimeout(Duration.ofMillis(600)));
            handedOver[0].detach(); // handed to async work: tied to no thread from now on
        });
        acquirer.start();
        acquirer.join();
        Lease detached = handedOver[0];

        for (int pass = 0; pass < 5; pass++) { // 1.5 s of the clock: well past the 600 ms lock timeout
            Instant end = detached.expiresAt();
            clock.advance(Duration.ofMillis(300));
            await().atMost(Threads.BOUND).until(() -> detached.expiresAt().isAfter(end)); // renewed
        }
        assertThat(detached.isHeld()).as("held past its lock timeout while open").isTrue();
        assertThat(threads.run(() -> registry.tryAcquire(List.of("async")))).isEmpty();

        detached.close();
        assertThat(detached.isHeld()).isFalse();
        Optional<Lease> next = threads.run(() -> registry.tryAcquire(List.of("async")));
        assertThat(next).as("free once closed").isPresent();
        next.get().close();
    }
}
