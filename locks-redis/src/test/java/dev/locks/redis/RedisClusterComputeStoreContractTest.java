package dev.locks.redis;

import static org.awaitility.Awaitility.await;

import dev.locks.contract.RemoteComputeStoreContract;
import dev.locks.redis.test.RedisClusterExtension;
import dev.locks.spi.RemoteComputeStore;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link RemoteComputeStoreContract} on a Redis Cluster of 3 masters: a key's value and records share its slot,
 * notices go by sharded pub/sub on the channel of that slot.
 */
class RedisClusterComputeStoreContractTest extends RemoteComputeStoreContract {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    /** The other nodes' connections: one factory for all of them, destroyed with the server. */
    private static RedisConnectionFactory peers;
    private boolean first = true;

    @Override
    protected RemoteComputeStore newStore() {
        RedisConnectionFactory factory = first ? connected(redis.connectionFactory()) : connected(peers());
        first = false;
        return new RedisComputeStore(factory, "locks:");
    }

    /**
     * {@code factory} once it has connected: a first connection on a loaded machine can take longer than a round
     * trip may (the store then fails the call), and the tests are about the steps, not connecting.
     */
    private static RedisConnectionFactory connected(RedisConnectionFactory factory) {
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            try (RedisConnection connection = factory.getConnection()) {
                return connection.ping() != null;
            }
        });
        return factory;
    }

    private static synchronized RedisConnectionFactory peers() {
        if (peers == null) {
            peers = redis.cluster().newConnectionFactory();
        }
        return peers;
    }
}
