package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import dev.locks.contract.LockRegistryContract;
import dev.locks.contract.SharedLocksContract;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Redis registry on a Redis Cluster of 3 masters passes the same contract as on one server: the contract's
 * keys ({@code "k"}, {@code "a"}, {@code "key-0"} to {@code "key-15"}, ...) land in slots of every master, so its
 * multi-key acquires (the mutual-exclusion fuzz over random subsets among them) span shards.
 */
class RedisClusterContractTest extends LockRegistryContract {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return RedisLockRegistry.builder(redis.connectionFactory()).defaultOptions(defaults).cleanupInterval(Duration.ZERO).build();
    }

    /**
     * Half of one server's (see {@link RedisLockRegistryContractTest#mutualExclusionRounds()}): a multi-key acquire
     * costs a round trip per slot and more, and 2,000 rounds took 12 to 26 s of the suite's time (one server: 4 s).
     */
    @Override
    protected int mutualExclusionRounds() {
        return 1_000;
    }

    /**
     * Fewer than on one server: an acquire of two keys in two slots costs three round trips and a release two,
     * and 2,000 rounds took 24 s of the test's 30 s bound on a loaded machine (one server: 2.6 s). 300 still
     * have the two orders cross hundreds of times.
     */
    @Override
    protected int oppositeOrderRounds() {
        return 300;
    }

    @Test
    void theFuzzKeysShouldSpanEveryMasterAsTheClusterItselfHashesThem() {
        Set<Integer> masters = IntStream.range(0, 16).mapToObj(k -> "locks:lock:key-" + k)
                .map(lockKey -> {
                    int slot = redis.cluster().keySlot(lockKey);
                    assertThat(ClusterSlots.slot(lockKey)).as("CLUSTER KEYSLOT %s", lockKey).isEqualTo(slot);
                    return redis.cluster().masterPortOf(slot);
                })
                .collect(Collectors.toSet());
        assertThat(masters).hasSize(3);
    }

    /**
     * {@link LockRegistry#acquireAsync} on the cluster: its multi-key acquires ({@code "x"} and {@code "y"}, the
     * starvation scenario's {@code "a"}, {@code "b"} and {@code "c"}) span slots.
     */
    @Nested
    class AsyncAcquire extends AsyncAcquireContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return RedisClusterContractTest.this.newRegistry(defaults);
        }
    }

    /**
     * Shared and counted locks on the cluster: the contract's multi-key shared acquire ({@code "a"}, {@code "b"},
     * {@code "c"}) spans slots, taken slot by slot in ascending order as an exclusive one.
     */
    @Nested
    class SharedLocks extends SharedLocksContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return RedisClusterContractTest.this.newRegistry(defaults);
        }

        /** As on one server ({@link RedisLockRegistryContractTest.SharedLocks#rounds()}). */
        @Override
        protected int rounds() {
            return 200;
        }
    }
}
