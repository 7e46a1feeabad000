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
 * Operations on Redis with many keys (issue 11, observations 1 and 2), counted on the server with
 * {@code INFO commandstats}: health is one {@code PING} per check, never a {@code SCAN} of the keyspace; a
 * bounded listing stops scanning once it has what it lists.
 */
class RedisOperationsAtScaleTests {

    private static final int CHECKS = 5;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void healthShouldPingOnceAndNeverScan() {
        nodeWithOtherKeys().run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    List<Lease> leases = hold(registry, 50);
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

    @Test
    void boundedListingShouldStopScanningOnceItHasEnough() {
        nodeWithOtherKeys().run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    List<Lease> leases = hold(registry, 200);
                    redis.server().command("CONFIG", "RESETSTAT");
                    assertThat(registry.heldLocks()).hasSize(200);
                    long fullScans = redis.server().commandCalls().getOrDefault("scan", 0L);
                    redis.server().command("CONFIG", "RESETSTAT");

                    assertThat(registry.heldLocks(5)).hasSize(5);

                    long boundedScans = redis.server().commandCalls().getOrDefault("scan", 0L);
                    assertThat(boundedScans).as("SCANs of a listing of 5, against %d of a full one", fullScans)
                            .isLessThan(fullScans / 2);
                    leases.forEach(Lease::close);
                });
    }

    /** A node on a Redis that holds 2,000 keys besides the locks. */
    private static ApplicationContextRunner nodeWithOtherKeys() {
        List<String> otherKeys = new ArrayList<>();
        otherKeys.add("MSET");
        for (int i = 0; i < 2_000; i++) {
            otherKeys.add("other:" + i);
            otherKeys.add("x");
        }
        redis.server().command(otherKeys.toArray(String[]::new));
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port());
    }

    private static List<Lease> hold(LockRegistry registry, int count) {
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            leases.add(registry.acquire(List.of("held:" + i)));
        }
        return leases;
    }
}
