package dev.locks.redis;

import dev.locks.redis.test.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link RedisComputeStoreContract} on a Redis Cluster of 3 masters: a key's value and records share its slot,
 * notices go by sharded pub/sub on the channel of that slot.
 */
class RedisClusterComputeStoreContractTest extends RedisComputeStoreContract {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    @Override
    RedisConnectionFactory sharedFactory() {
        return redis.connectionFactory();
    }

    @Override
    RedisConnectionFactory newPeerFactory() {
        return redis.cluster().newConnectionFactory();
    }
}
