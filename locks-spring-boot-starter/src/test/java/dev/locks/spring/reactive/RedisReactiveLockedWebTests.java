package dev.locks.spring.reactive;

import dev.locks.redis.test.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * {@link ReactiveLockedWebTests} on the Redis backend, on a redis-server of this class's own through Spring Boot's
 * Redis auto-configuration (Lettuce). The context goes with the server, after the class.
 */
@TestPropertySource(properties = "locks.backend=redis")
@DirtiesContext
class RedisReactiveLockedWebTests extends ReactiveLockedWebTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry properties) {
        properties.add("spring.data.redis.host", () -> "127.0.0.1");
        properties.add("spring.data.redis.port", redis::port);
    }
}
