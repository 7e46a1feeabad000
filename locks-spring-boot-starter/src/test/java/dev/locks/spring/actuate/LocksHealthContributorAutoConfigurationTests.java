package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LockRegistry;
import dev.locks.spring.LocksAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** When the {@code locks} health contributor is there, and when it is not. */
class LocksHealthContributorAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksHealthContributorAutoConfiguration.class))
            .withBean(LockRegistry.class, StubLockRegistry::new);

    @Test
    void healthOnTheClasspathShouldAutoConfigureTheContributor() {
        runner.run(context -> assertThat(context).hasSingleBean(LocksHealthIndicator.class)
                .hasBean("locksHealthIndicator"));
    }

    @Test
    void realRegistryShouldBeUp() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .run(context -> assertThat(context.getBean(LocksHealthIndicator.class).health().getDetails())
                        .containsEntry("backend", "local").containsEntry("held", 0));
    }

    @Test
    void healthIndicatorDisabledShouldRemoveTheContributor() {
        runner.withPropertyValues("management.health.locks.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LocksHealthIndicator.class));
    }

    @Test
    void locksDisabledShouldRemoveTheContributor() {
        runner.withPropertyValues("locks.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LocksHealthIndicator.class));
    }

    @Test
    void healthAbsentShouldRemoveTheContributor() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksHealthIndicator.class));
    }

    @Test
    void noLockRegistryShouldRemoveTheContributor() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksHealthContributorAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksHealthIndicator.class));
    }

    @Test
    void userContributorNamedLocksShouldWin() {
        HealthIndicator mine = () -> Health.up().build();
        runner.withBean("locksHealthContributor", HealthIndicator.class, () -> mine)
                .run(context -> assertThat(context).doesNotHaveBean(LocksHealthIndicator.class)
                        .getBean("locksHealthContributor").isSameAs(mine));
    }

    @Test
    void userIndicatorOfTheSameTypeShouldWin() {
        LocksHealthIndicator mine = new LocksHealthIndicator(new StubLockRegistry(), null, LocksBackendPing.NONE,
                new LastSweep());
        runner.withBean("myLocksHealth", LocksHealthIndicator.class, () -> mine)
                .run(context -> assertThat(context).getBean(LocksHealthIndicator.class).isSameAs(mine));
    }
}
