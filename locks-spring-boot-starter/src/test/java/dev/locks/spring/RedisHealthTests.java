package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spring.actuate.LocksHealthContributorAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Health on Redis (issue 11, observation 1): one {@code PING} per check, never a {@code SCAN} of the keyspace,
 * counted on the server with {@code INFO commandstats}.
 */
class RedisHealthTests {

    private static final int CHECKS = 5;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void healthShouldPingOnceAndNeverScan() {
        List<String> otherKeys = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            otherKeys.add("other:" + i);
            otherKeys.add("x");
        }
        redis.server().command(withCommand("MSET", otherKeys));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port())
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    List<Lease> leases = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        leases.add(registry.acquire(List.of("held:" + i)));
                    }
                    HealthIndicator health = context.getBean("locksHealthIndicator", HealthIndicator.class);
                    health.health();
                    redis.server().command("CONFIG", "RESETSTAT");

                    List<Health> checks = new ArrayList<>();
                    for (int i = 0; i < CHECKS; i++) {
                        checks.add(health.health());
                    }

                    Map<String, Long> calls = redis.server().commandCalls();
                    calls.keySet().removeIf(command -> command.startsWith("config") || command.startsWith("info"));
                    assertThat(checks).allSatisfy(check -> {
                        assertThat(check.getStatus()).isEqualTo(Status.UP);
                        assertThat(check.getDetails()).containsEntry("backend", "redis").containsEntry("held", 50);
                    });
                    assertThat(calls).doesNotContainKeys("scan", "keys").containsEntry("ping", (long) CHECKS);
                    assertThat(calls.values().stream().mapToLong(Long::longValue).sum())
                            .as("commands of %d health checks: %s", CHECKS, calls).isEqualTo(CHECKS);
                    leases.forEach(Lease::close);
                });
    }

    private static String[] withCommand(String command, List<String> args) {
        List<String> all = new ArrayList<>(args.size() + 1);
        all.add(command);
        all.addAll(args);
        return all.toArray(String[]::new);
    }
}
