package dev.locks.spring.actuate;

import dev.locks.spring.interceptor.CallObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the Observations of annotated calls ({@link LocksObservations}: {@code locks.acquire},
 * {@code locks.compute}), when the application has a Micrometer {@link ObservationRegistry} (Spring Boot makes
 * one with the actuator; tracing turns the observations into spans). The interceptors look it up on their first
 * call.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "locks.enabled", matchIfMissing = true)
@ConditionalOnBean(ObservationRegistry.class)
public final class LocksObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CallObservations locksObservations(ObservationRegistry observationRegistry) {
        return new LocksObservations(observationRegistry);
    }
}
