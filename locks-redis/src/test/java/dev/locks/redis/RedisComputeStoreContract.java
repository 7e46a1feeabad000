package dev.locks.redis;

import static org.awaitility.Awaitility.await;

import dev.locks.contract.RemoteComputeStoreContract;
import dev.locks.spi.RemoteComputeStore;
import java.time.Duration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link RemoteComputeStoreContract} on Redis: the first node on the server's shared connection factory, the others on
 * one factory of their own ({@link #newPeerFactory()}, made once per class, destroyed with the server).
 */
abstract class RedisComputeStoreContract extends RemoteComputeStoreContract {

    private static final java.util.Map<Class<?>, RedisConnectionFactory> PEERS =
            new java.util.concurrent.ConcurrentHashMap<>();
    private boolean first = true;

    /** The server's shared connection factory. */
    abstract RedisConnectionFactory sharedFactory();

    /** A new connection factory on the same server, destroyed with it. */
    abstract RedisConnectionFactory newPeerFactory();

    @Override
    protected RemoteComputeStore newStore() {
        RedisConnectionFactory factory = first ? sharedFactory()
                : PEERS.computeIfAbsent(getClass(), type -> newPeerFactory());
        first = false;
        return new RedisComputeStore(connected(factory), "locks:");
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
}
