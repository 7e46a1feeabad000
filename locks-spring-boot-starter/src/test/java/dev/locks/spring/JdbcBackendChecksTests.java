package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.spring.actuate.LocksHealthContributorAutoConfiguration;
import dev.locks.spring.actuate.LocksHealthIndicator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What the JDBC backend checks at startup, and its health under load (issue 27, observations 4, 9 and 11): a
 * database without the schema stops startup naming the missing object, {@code locks.jdbc.initialize-schema} and the
 * script (SPEC section 9); applying the script is logged; a HikariCP pool smaller than what the beans keep of it
 * plus one is warned about; 200 concurrent health checks of a busy node are all {@code UP} while its locks go on.
 */
@ExtendWith(OutputCaptureExtension.class)
class JdbcBackendChecksTests {

    @RegisterExtension
    static final PostgresServerExtension server = new PostgresServerExtension();

    private ApplicationContextRunner withJdbc() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + server.server().jdbcUrl(),
                        "spring.datasource.username=postgres", "spring.datasource.hikari.connection-timeout=2000",
                        "locks.backend=jdbc");
    }

    @Test
    void aDatabaseWithoutTheSchemaShouldStopStartupSayingWhatToDo() {
        withJdbc().withPropertyValues("locks.jdbc.initialize-schema=never", "locks.jdbc.table-prefix=empty_")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessageContaining("empty_lock")
                            .hasMessageContaining("locks.jdbc.initialize-schema")
                            .hasMessageContaining("dev/locks/jdbc/schema-postgresql.sql");
                });
    }

    /** The library logs through {@link System.Logger}: on JUL by default, which Boot's output capture does not see. */
    @Test
    void applyingTheScriptShouldBeLogged() {
        List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger("dev.locks.jdbc.JdbcSettings");
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                logged.add(record.getLevel() + " " + record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            withJdbc().withPropertyValues("locks.jdbc.initialize-schema=always", "locks.jdbc.table-prefix=applied_")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(logged).anyMatch(line -> line.startsWith("INFO applied "
                                + "dev/locks/jdbc/schema-postgresql.sql for the table prefix 'applied_'"));
                    });
        } finally {
            logger.removeHandler(handler);
        }
    }

    @Test
    void aPoolSmallerThanWhatTheBeansKeepShouldBeWarnedAbout(CapturedOutput output) {
        withJdbc().withPropertyValues("locks.jdbc.initialize-schema=always", "spring.datasource.hikari.maximum-pool-size=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("locks.jdbc.connections=2").contains("maximum-pool-size 5")
                            .contains("at least 6");
                });
    }

    @Test
    void aPoolLargeEnoughShouldNotBeWarnedAbout(CapturedOutput output) {
        withJdbc().withPropertyValues("locks.jdbc.initialize-schema=always", "spring.datasource.hikari.maximum-pool-size=6")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).doesNotContain("maximum-pool-size 6");
                });
    }

    @Test
    void twoHundredHealthChecksOfABusyNodeShouldAllBeUpWhileItsLocksGoOn() throws Exception {
        withJdbc().withPropertyValues("locks.jdbc.initialize-schema=always", "locks.jdbc.timeout=1s").run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            LocksHealthIndicator health = context.getBean(LocksHealthIndicator.class);
            ExecutorService threads = Executors.newCachedThreadPool();
            try {
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger cycles = new AtomicInteger();
                Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
                List<Future<?>> lockers = new ArrayList<>();
                for (int t = 0; t < 100; t++) {
                    String key = "health-" + t;
                    lockers.add(threads.submit(() -> {
                        while (!stop.get()) {
                            try (Lease lease = registry.acquire(List.of(key),
                                    AcquireOptions.defaults().withWaitTime(Duration.ofSeconds(60)))) {
                                cycles.incrementAndGet();
                            } catch (RuntimeException e) {
                                failures.add(e);
                            }
                        }
                    }));
                }
                int before = cycles.get();
                List<Future<Health>> checks = new ArrayList<>();
                for (int t = 0; t < 200; t++) {
                    checks.add(threads.submit(() -> health.health()));
                }
                List<Status> statuses = new ArrayList<>();
                for (Future<Health> check : checks) {
                    statuses.add(check.get(60, TimeUnit.SECONDS).getStatus());
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (cycles.get() - before < 200 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                stop.set(true);
                for (Future<?> locker : lockers) {
                    locker.get(60, TimeUnit.SECONDS);
                }
                assertThat(statuses).as("every check of a busy node").containsOnly(Status.UP);
                assertThat(failures).as("no lock call of a busy node fails").isEmpty();
                assertThat(cycles.get() - before).as("lock cycles went on").isGreaterThanOrEqualTo(200);
            } finally {
                threads.shutdownNow();
            }
        });
    }
}
