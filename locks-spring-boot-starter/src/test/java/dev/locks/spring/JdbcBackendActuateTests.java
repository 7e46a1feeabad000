package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.spring.actuate.LocksHealthContributorAutoConfiguration;
import dev.locks.spring.actuate.LocksHealthIndicator;
import dev.locks.spring.actuate.LocksMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Health and meters under the JDBC backend, against a PostgreSQL of this class's own: the {@code locks} health
 * is {@code UP} with {@code backend=jdbc}, {@code DOWN} while the database is down (the test stops it), and
 * {@code UP} again afterwards, without a restart; the meters carry {@code backend=jdbc}.
 */
class JdbcBackendActuateTests {

    @RegisterExtension
    static final PostgresServerExtension server = new PostgresServerExtension();

    private ApplicationContextRunner withJdbc() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, LocksMetricsAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + server.server().jdbcUrl(),
                        "spring.datasource.username=postgres", "spring.datasource.hikari.connection-timeout=1000",
                        "locks.backend=jdbc", "locks.jdbc.initialize-schema=always");
    }

    @Test
    void metersShouldCarryTheJdbcBackend() {
        withJdbc().run(context -> {
            context.getBean(LockRegistry.class).acquire(List.of("account:1")).close();
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("locks.acquire").tags("backend", "jdbc", "result", "acquired").timer().count())
                    .isOne();
            context.getBean(ComputeCache.class).fetchOrCompute("quote:1", Duration.ofMinutes(1), () -> "v");
            assertThat(meters.get("locks.compute").tags("backend", "jdbc", "outcome", "computed").timer().count())
                    .isOne();
        });
    }

    @Test
    void healthShouldFollowTheDatabase() {
        withJdbc().run(context -> {
            LocksHealthIndicator health = context.getBean(LocksHealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat(health.health().getDetails()).containsEntry("backend", "jdbc");

            server.server().stop();
            assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);

            server.server().restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> health.health().getStatus().equals(Status.UP));
        });
    }
}
