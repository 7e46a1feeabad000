package dev.locks.benchmarks.redis;

import dev.locks.redis.RedisLockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Nodes of a workload on one {@code redis-server}: each a {@link RedisLockRegistry} (no periodic sweep) on a
 * Lettuce connection factory of its own, as separate applications would have; closing closes them all.
 */
public final class RedisNodes implements AutoCloseable {

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private final List<RedisLockRegistry> registries = new ArrayList<>();

    /** {@code count} nodes on the server at {@code port} of the loopback address. */
    public RedisNodes(int port, int count) {
        try {
            for (int i = 0; i < count; i++) {
                LettuceConnectionFactory factory = new LettuceConnectionFactory(
                        new RedisStandaloneConfiguration("127.0.0.1", port));
                factory.afterPropertiesSet();
                factory.start();
                factories.add(factory);
                registries.add(RedisLockRegistry.builder(factory).cleanupInterval(Duration.ZERO).build());
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    public List<RedisLockRegistry> registries() {
        return List.copyOf(registries);
    }

    @Override
    public void close() {
        registries.forEach(RedisLockRegistry::close);
        factories.forEach(LettuceConnectionFactory::destroy);
    }
}
