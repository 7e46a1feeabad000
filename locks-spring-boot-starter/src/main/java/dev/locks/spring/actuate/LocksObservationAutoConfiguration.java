package dev.locks.spring.actuate;

import dev.locks.spring.interceptor.CallObservations;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

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

    /** The {@code result} and {@code outcome} of each observed call, from the registry's and the cache's events. */
    @Bean
    @ConditionalOnMissingBean
    ObservationOutcomes locksObservationOutcomes(ObservationRegistry observationRegistry) {
        return new ObservationOutcomes(observationRegistry);
    }

    /**
     * Keeps the {@code locks.*} meters as the contract has them. An observation handler for meters (Spring
     * Boot registers one with Micrometer) would make a timer of each observation under the observation's name,
     * {@code locks.acquire} or {@code locks.compute}, with other tags ({@code error}, no {@code result}) than the
     * meters of that name, plus a {@code .active} long task timer; this filter denies those, so that the
     * observations reach tracing while the meters stay {@link LocksMetrics}'s alone.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterFilter.class)
    static class ObservationMeters {

        @Bean
        @ConditionalOnMissingBean(name = "locksObservationMeterFilter")
        static MeterFilter locksObservationMeterFilter() {
            return MeterFilter.deny(ObservationMeters::isObservationMeter);
        }

        /** A meter that an observation handler made of one of the starter's observations. */
        static boolean isObservationMeter(Meter.Id id) {
            String name = id.getName();
            if (name.equals(CallObservations.ACQUIRE + ".active")
                    || name.equals(CallObservations.COMPUTE + ".active")) {
                return true;
            }
            return (name.equals(CallObservations.ACQUIRE) || name.equals(CallObservations.COMPUTE))
                    && id.getTag("error") != null;
        }
    }
}
