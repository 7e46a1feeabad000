package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.jdbc.test.PostgresServer;
import dev.locks.spring.actuate.LocksHealthContributorAutoConfiguration;
import dev.locks.spring.actuate.LocksHealthIndicator;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @Test
    void healthShouldFollowTheDatabase() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(), "spring.datasource.username=postgres",
                        "spring.datasource.hikari.connection-timeout=1000", "locks.backend=jdbc",
                        "locks.jdbc.initialize-schema=always")
                .run(context -> {
                    LocksHealthIndicator health = context.getBean(LocksHealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    assertThat(health.health().getDetails()).containsEntry("backend", "jdbc");

                    postgres.stop();
                    assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);

                    postgres.restart();
                    await().atMost(Duration.ofSeconds(30)).until(() -> health.health().getStatus().equals(Status.UP));
                });
    }
}
