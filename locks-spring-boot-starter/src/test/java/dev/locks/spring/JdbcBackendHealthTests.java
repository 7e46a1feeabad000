package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.spring.actuate.LocksHealthContributorAutoConfiguration;
import dev.locks.spring.actuate.LocksHealthIndicator;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code locks} health under the JDBC backend, against a PostgreSQL of this class's own that the test
 * stops and starts again: {@code UP} with {@code backend=jdbc}, {@code DOWN} while the database is down, and
 * {@code UP} again afterwards, without a restart.
 */
class JdbcBackendHealthTests {

    @RegisterExtension
    static final PostgresServerExtension server = new PostgresServerExtension();

    @Test
    void healthShouldFollowTheDatabase() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + server.server().jdbcUrl(), "spring.datasource.username=postgres",
                        "spring.datasource.hikari.connection-timeout=1000", "locks.backend=jdbc",
                        "locks.jdbc.initialize-schema=always")
                .run(context -> {
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
