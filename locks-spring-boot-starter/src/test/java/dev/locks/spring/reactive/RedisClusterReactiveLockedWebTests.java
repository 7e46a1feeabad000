package dev.locks.spring.reactive;

import dev.locks.redis.test.RedisClusterExtension;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * {@link ReactiveLockedWebTests} on a Redis Cluster of 3 masters of this class's own, through Spring Boot's Redis
 * auto-configuration in cluster mode: the keys of one call on several shards, their round trips on the registry's
 * and the cache's own threads, never on an event loop. The context goes with the cluster, after the class.
 */
@TestPropertySource(properties = { "locks.backend=redis", "spring.data.redis.timeout=5s" })
@DirtiesContext
class RedisClusterReactiveLockedWebTests extends ReactiveLockedWebTests {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    @DynamicPropertySource
    static void clusterProperties(DynamicPropertyRegistry properties) {
        properties.add("spring.data.redis.cluster.nodes", () -> Arrays.stream(redis.cluster().ports())
                .mapToObj(port -> "127.0.0.1:" + port).collect(Collectors.joining(",")));
    }
}
