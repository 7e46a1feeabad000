package dev.locks.spring.actuate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The smallest web application with the starter and the actuator, for the integration tests over HTTP:
 * every bean comes from auto-configuration, but for a meter registry that the tests can read. Spring Boot's
 * Redis auto-configuration is left out: Redis is on the test classpath for the Redis backend's tests, and
 * would otherwise connect to whatever Redis runs on the machine's default port.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
class ActuateTestApplication {

    @Bean
    SimpleMeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }
}
