package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockUnavailableException;
import dev.locks.redis.test.RedisCluster;
import dev.locks.redis.test.RedisClusterExtension;
import dev.locks.spring.actuate.LocksHealthContributorAutoConfiguration;
import dev.locks.spring.actuate.LocksHealthIndicator;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An application on a Redis Cluster of 3 masters with a replica each, through Spring Boot's own Redis
 * auto-configuration, when a master is killed (SIGKILL): its {@code locks} health goes {@code DOWN} while the
 * master is gone, and {@code UP} again once its replica took over, without a restart; a waiter on a key of
 * that shard is then woken by the release, and nothing stays locked.
 */
class RedisClusterFailoverHealthTests {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

    @Test
    void healthShouldBeDownWhileAMasterIsGoneAndUpAgainOnceItsReplicaTookOver() {
        RedisCluster cluster = redis.cluster();
        String nodes = Arrays.stream(cluster.ports()).mapToObj(port -> "127.0.0.1:" + port)
                .collect(Collectors.joining(","));
        String key = "account:1";
        int slot = cluster.keySlot("locks:lock:" + key);
        int master = cluster.masterPortOf(slot);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksHealthContributorAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.cluster.nodes=" + nodes, "spring.data.redis.timeout=1s",
                        "spring.data.redis.connect-timeout=1s", "locks.cleanup-interval=0s")
                .run(context -> {
                    LocksHealthIndicator health = context.getBean(LocksHealthIndicator.class);
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    AcquireOptions once = AcquireOptions.defaults().withRetries(0).withLockTimeout(Duration.ofSeconds(30));
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    try (Lease lease = registry.acquire(List.of(key), once)) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                    // the release too must be on the replica that takes over, or the key stays held there
                    assertThat(cluster.awaitReplicated(master)).isOne();

                    cluster.kill(master);

                    await().atMost(Duration.ofSeconds(20)).until(() -> health.health().getStatus().equals(Status.DOWN));
                    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                        try (Lease probe = registry.acquire(List.of(key), once)) {
                            return true;
                        } catch (LockUnavailableException stillDown) {
                            return false;
                        }
                    });
                    await().atMost(Duration.ofSeconds(30)).until(() -> health.health().getStatus().equals(Status.UP));

                    AcquireOptions patient = AcquireOptions.defaults().withRetryInterval(Duration.ofSeconds(2))
                            .withWaitTime(Duration.ofSeconds(30)).withLockTimeout(Duration.ofSeconds(30));
                    Lease held = registry.acquire(List.of(key), patient);
                    CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
                        try (Lease lease = registry.acquire(List.of(key), patient)) {
                            return lease.fencingToken();
                        }
                    });
                    Thread.sleep(200);
                    long token = held.fencingToken();
                    held.close();
                    assertThat(waited.get(20, TimeUnit.SECONDS)).isGreaterThan(token);
                    assertThat(registry.heldCount()).as("nothing left locked").isZero();
                    assertThat(registry.heldLocks(100)).isEmpty();
                });
    }
}
