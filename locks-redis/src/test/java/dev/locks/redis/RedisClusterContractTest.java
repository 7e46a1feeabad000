package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.LockRegistryContract;
import dev.locks.redis.test.RedisCluster;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis registry on a Redis Cluster of 3 masters passes the same contract as on one server: the contract's
 * keys ({@code "k"}, {@code "a"}, {@code "key-0"} to {@code "key-15"}, ...) land in slots of every master, so its
 * multi-key acquires (the mutual-exclusion fuzz over random subsets among them) span shards.
 */
class RedisClusterContractTest extends LockRegistryContract {

    private static RedisCluster cluster;
    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 0);
        factory = cluster.newConnectionFactory();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void flush() {
        cluster.flushAll();
    }

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return RedisLockRegistry.builder(factory).defaultOptions(defaults).cleanupInterval(Duration.ZERO).build();
    }

    /** As on one server (see {@link RedisLockRegistryContractTest#mutualExclusionRounds()}). */
    @Override
    protected int mutualExclusionRounds() {
        return 2_000;
    }

    @Test
    void theFuzzKeysShouldSpanEveryMasterAsTheClusterItselfHashesThem() {
        Set<Integer> masters = IntStream.range(0, 16).mapToObj(k -> "locks:lock:key-" + k)
                .map(lockKey -> {
                    int slot = cluster.keySlot(lockKey);
                    assertThat(ClusterSlots.slot(lockKey)).as("CLUSTER KEYSLOT %s", lockKey).isEqualTo(slot);
                    return cluster.masterPortOf(slot);
                })
                .collect(Collectors.toSet());
        assertThat(masters).hasSize(3);
    }
}
