package dev.locks.spring.reactive;

import dev.locks.redis.test.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * {@link HungComputationWebTests} on the Redis backend, where a hit and an acquire are round trips on the wait
 * scheduler, on a redis-server of this class's own. The context goes with the server, after the class.
 */
@TestPropertySource(properties = "locks.backend=redis")
@DirtiesContext
class RedisHungComputationWebTests extends HungComputationWebTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry properties) {
        properties.add("spring.data.redis.host", () -> "127.0.0.1");
        properties.add("spring.data.redis.port", redis::port);
    }
}
