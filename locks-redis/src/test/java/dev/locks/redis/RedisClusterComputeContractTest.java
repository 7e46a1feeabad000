package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.contract.ComputeCacheContract;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis cache on a Redis Cluster of 3 masters passes the same contract as on one server: a key's value
 * and compute lock share its slot, different keys spread over the shards. Time passes on every master
 * ({@link RedisComputeServerTime}), as on one server.
 */
class RedisClusterComputeContractTest extends ComputeCacheContract {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    private RedisConnectionFactory peerFactory;

    private final List<RedisComputeCache> nodes = new CopyOnWriteArrayList<>();

    @Override
    protected ComputeCache newCache(ComputeOptions defaults, LocksClock clock) {
        return node(redis.connectionFactory(), defaults, clock);
    }

    @Override
    protected ComputeCache newPeer(ComputeCache cache, ComputeOptions defaults, LocksClock clock) {
        if (peerFactory == null) {
            peerFactory = redis.cluster().newConnectionFactory(); // destroyed with the cluster
        }
        return node(peerFactory, defaults, clock);
    }

    @Override
    protected void elapse(Duration duration) {
        super.elapse(duration);
        for (int port : redis.cluster().masterPorts()) {
            RedisComputeServerTime.elapse(port, duration);
        }
    }

    @Override
    protected Duration precision() {
        return Duration.ofMillis(200);
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(RedisComputeCache::close);
    }

    @Test
    void aKeysValueAndComputeLockShouldShareItsSlotWhileKeysSpreadOverTheMasters() {
        assertThat(List.of("a", "b", "c", "d", "e", "f", "g", "h").stream()
                .map(key -> redis.cluster().masterPortOf(redis.cluster().keySlot("locks:value:" + key))).distinct().count())
                .isGreaterThan(1);
        RedisComputeCache cache = node(redis.connectionFactory(), ComputeOptions.defaults(), LocksClock.system());
        assertThat(cache.fetchOrCompute("a", Duration.ofMinutes(1), () -> "va")).isEqualTo("va");
        int slot = redis.cluster().keySlot("locks:value:a");
        assertThat(redis.cluster().command(redis.cluster().masterPortOf(slot), "GET", "locks:value:a")).isNotNull();
        assertThat((List<?>) redis.cluster().command(redis.cluster().masterPortOf(slot), "CLUSTER", "GETKEYSINSLOT",
                Integer.toString(slot), "10")).hasSize(2);
    }

    private RedisComputeCache node(RedisConnectionFactory factory, ComputeOptions defaults, LocksClock clock) {
        RedisComputeCache node = RedisComputeCache.builder(factory).defaultOptions(defaults).clock(clock).build();
        nodes.add(node);
        return node;
    }
}
