package dev.locks.spring.actuate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The smallest web application with the starter and the actuator, for the integration tests over HTTP:
 * every bean comes from auto-configuration, but for a meter registry that the tests can read.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ActuateTestApplication {

    @Bean
    SimpleMeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }
}
