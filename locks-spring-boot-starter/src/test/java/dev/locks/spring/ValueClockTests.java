package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.local.LocalComputeCache;
import dev.locks.test.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Tests of an application's own code with value TTLs under control (issue 11, observation 9): a manual clock
 * given to the compute cache alone (a {@link ComputeCacheBuilderCustomizer}, as docs/testing.md shows) moves value
 * TTLs when the test advances it, while lock waits keep the system clock and so still give up in time. A
 * {@code LocksClock} bean would time both, and a contended call would never give up.
 */
class ValueClockTests {

    private final ManualClock valueClock = new ManualClock();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withBean(ComputeCacheBuilderCustomizer.class, () -> (ComputeCacheBuilderCustomizer<LocalComputeCache.Builder>)
                    builder -> builder.clock(valueClock))
            .withBean(Quotes.class);

    @Test
    void valueTtlShouldFollowTheManualClockWhileLockWaitsStillGiveUp() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.price("ACME")).isEqualTo(1);
            assertThat(quotes.price("ACME")).as("a hit before the TTL").isEqualTo(1);

            valueClock.advance(Duration.ofMinutes(2));
            assertThat(quotes.price("ACME")).as("computed again once the TTL has passed").isEqualTo(2);

            try (Lease held = context.getBean(LockRegistry.class).acquire(List.of("quote:ACME"))) {
                CompletableFuture<Object> contended = CompletableFuture.supplyAsync(() -> {
                    quotes.update("ACME");
                    return null;
                });
                assertThat(contended).failsWithin(30, TimeUnit.SECONDS).withThrowableThat()
                        .havingRootCause().isInstanceOf(LockTimeoutException.class);
            }
        });
    }

    static class Quotes {

        private final AtomicInteger computed = new AtomicInteger();

        @FetchOrCompute(key = "#symbol", ttl = "1m")
        public int price(String symbol) {
            return computed.incrementAndGet();
        }

        @Locked(keys = "'quote:' + #symbol", retries = "infinity", waitTime = "200ms")
        public void update(String symbol) {
        }
    }
}
