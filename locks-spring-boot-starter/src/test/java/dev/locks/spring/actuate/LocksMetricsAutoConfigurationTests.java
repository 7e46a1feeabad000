package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.LocksObserver;
import dev.locks.spring.LocksAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** When the {@code locks.*} meters are there, and when they are not. */
class LocksMetricsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, LocksMetricsAutoConfiguration.class))
            .withBean(LockRegistry.class, StubLockRegistry::new);

    @Test
    void meterRegistryShouldAutoConfigureTheMetersAsAnObserver() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(LocksMetrics.class);
            assertThat(context.getBeansOfType(LocksObserver.class)).containsValue(context.getBean(LocksMetrics.class));
            assertThat(context.getBean(MeterRegistry.class).find("locks.held").tag("backend", "stub").gauge())
                    .isNotNull();
        });
    }

    @Test
    void realRegistryShouldBeBuiltWithTheMetersAndFeedThem() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, LocksMetricsAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(LockRegistry.class).acquire(List.of("account:1")).close();
                    context.getBean(ComputeCache.class).fetchOrCompute("quote:ACME", Duration.ZERO, () -> 1);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("locks.acquire").tags("backend", "local", "result", "acquired").timer()
                            .count()).isOne();
                    assertThat(meters.get("locks.compute").tags("backend", "local", "outcome", "computed").timer()
                            .count()).isOne();
                });
    }

    @Test
    void noMeterRegistryShouldRemoveTheMeters() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksMetricsAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksMetrics.class));
    }

    @Test
    void locksDisabledShouldRemoveTheMeters() {
        runner.withPropertyValues("locks.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LocksMetrics.class));
    }

    @Test
    void micrometerAbsentShouldRemoveTheMeters() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksMetrics.class));
    }

    @Test
    void userMetersShouldWin() {
        LocksMetrics mine = new LocksMetrics(() -> null, () -> null);
        runner.withBean("myLocksMetrics", LocksMetrics.class, () -> mine)
                .run(context -> assertThat(context).getBean(LocksMetrics.class).isSameAs(mine));
    }

    @Test
    void userMeterRegistryShouldBeBound() {
        SimpleMeterRegistry mine = new SimpleMeterRegistry();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        LocksMetricsAutoConfiguration.class))
                .withBean(LockRegistry.class, StubLockRegistry::new)
                .withBean(SimpleMeterRegistry.class, () -> mine)
                .run(context -> assertThat(mine.find("locks.acquire").timers()).hasSize(4));
    }
}
