package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.spring.LocksAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Health at scale (issue 11, observation 1): a health check reads counters, never a listing, so that its
 * cost does not grow with the number of locks.
 */
class HealthAtScaleTests {

    private static final int HELD = 100_000;

    @Test
    void manyHeldLocksShouldBeCountedWithoutListingThem() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withBean(LockRegistry.class, UnlistableRegistry::new)
                .run(context -> {
                    Health health = context.getBean("locksHealthIndicator", HealthIndicator.class).health();

                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("held", HELD).containsEntry("stale", 0)
                            .containsEntry("computations", 0);
                });
    }

    @Test
    void realRegistryHoldingManyLocksShouldCountThemAll() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    List<Lease> leases = new ArrayList<>();
                    for (int batch = 0; batch < HELD / 1000; batch++) {
                        List<String> keys = new ArrayList<>(1000);
                        for (int i = 0; i < 1000; i++) {
                            keys.add("customer:" + batch + ":" + i);
                        }
                        leases.add(registry.acquire(keys));
                    }
                    try {
                        Health health = context.getBean("locksHealthIndicator", HealthIndicator.class).health();

                        assertThat(health.getStatus()).isEqualTo(Status.UP);
                        assertThat(health.getDetails()).containsEntry("backend", "local").containsEntry("held", HELD);
                    }
                    finally {
                        leases.forEach(Lease::close);
                    }
                });
    }

    /** A registry that holds {@value #HELD} keys, and fails the test if anyone lists them. */
    static final class UnlistableRegistry extends StubLockRegistry {

        @Override
        public List<HeldLock> heldLocks() {
            throw new AssertionError("health listed " + HELD + " locks");
        }

        @Override
        public int heldCount() {
            return HELD;
        }
    }
}
