package dev.locks.spring.reactive;

import org.springframework.test.context.TestPropertySource;

/** {@link HungComputationWebTests} on the local backend; Spring Boot's Redis auto-configuration left out. */
@TestPropertySource(properties = { "locks.backend=local",
        "spring.autoconfigure.exclude=org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration,"
                + "org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration" })
class LocalHungComputationWebTests extends HungComputationWebTests {
}
