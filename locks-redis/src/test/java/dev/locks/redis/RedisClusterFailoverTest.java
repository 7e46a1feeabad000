package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockUnavailableException;
import dev.locks.redis.test.RedisCluster;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A shard's master killed (SIGKILL) on a cluster of 3 masters with a replica each: its keys are unavailable
 * (never a timeout) until the cluster promotes the replica, the other shards' keys keep working, and then
 * everything works again without a restart, with fencing tokens of the shard's keys still going forward.
 */
class RedisClusterFailoverTest {

    private static final AcquireOptions ONCE = AcquireOptions.defaults().withRetries(0)
            .withLockTimeout(Duration.ofSeconds(30));

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

    @Test
    void killedMastersKeysShouldBeUnavailableUntilItsReplicaTakesOverThenWorkWithTokensGoingForward()
            throws InterruptedException {
        RedisCluster cluster = redis.cluster();
        String key = "order:1";
        int slot = cluster.keySlot("locks:lock:" + key);
        int master = cluster.masterPortOf(slot);
        String other = IntStream.range(2, 100).mapToObj(i -> "order:" + i)
                .filter(k -> cluster.masterPortOf(cluster.keySlot("locks:lock:" + k)) != master)
                .findFirst().orElseThrow();
        try (RedisLockRegistry registry = RedisLockRegistry.builder(cluster.newConnectionFactory())
                .cleanupInterval(Duration.ZERO).build()) {
            long last = 0;
            for (int i = 0; i < 20; i++) {
                try (Lease lease = registry.acquire(i % 2 == 0 ? List.of(key) : List.of(key, other), ONCE)) {
                    assertThat(lease.fencingToken()).isGreaterThan(last);
                    last = lease.fencingToken();
                }
            }
            assertThat(cluster.awaitReplicated(master)).as("the replica has every write").isOne();

            cluster.kill(master);

            assertThatThrownBy(() -> registry.acquire(List.of(key), ONCE)).isInstanceOf(LockUnavailableException.class);
            assertThatThrownBy(() -> registry.acquire(List.of(key, other), ONCE))
                    .isInstanceOf(LockUnavailableException.class);
            assertThat(registry.heldCount()).as("nothing of the failed attempts kept").isZero();
            try (Lease lease = registry.acquire(List.of(other), ONCE)) {
                assertThat(lease.fencingToken()).as("another shard's key, meanwhile").isPositive();
            }

            Lease after = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (after == null) {
                try {
                    after = registry.acquire(List.of(key, other), ONCE);
                } catch (LockUnavailableException stillDown) {
                    assertThat(System.nanoTime()).as("the replica took over within 60 s").isLessThan(deadline);
                    Thread.sleep(100);
                }
            }
            try (Lease lease = after) {
                assertThat(lease.fencingToken()).as("the first token after the failover").isGreaterThan(last);
                last = lease.fencingToken();
            }
            assertThat(cluster.masterPortOf(slot)).as("the slot's new master").isNotEqualTo(master);
            try (Lease lease = registry.acquire(List.of(key), ONCE)) {
                assertThat(lease.fencingToken()).isGreaterThan(last);
            }
        }
    }
}
