package dev.locks.redis;

import dev.locks.redis.test.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** {@link RedisComputeStoreContract} on one Redis server. */
class RedisComputeStoreContractTest extends RedisComputeStoreContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    RedisConnectionFactory sharedFactory() {
        return redis.connectionFactory();
    }

    @Override
    RedisConnectionFactory newPeerFactory() {
        return redis.newConnectionFactory();
    }
}
