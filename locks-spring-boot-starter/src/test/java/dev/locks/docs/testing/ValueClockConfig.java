package dev.locks.docs.testing;

import dev.locks.local.LocalComputeCache;
import dev.locks.spring.ComputeCacheBuilderCustomizer;
import dev.locks.test.ManualClock;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

// tag::value-clock-config[]
@TestConfiguration
class ValueClockConfig {

    static final ManualClock VALUES = new ManualClock();   // any LocksClock whose time the test moves

    @Bean
    ComputeCacheBuilderCustomizer<LocalComputeCache.Builder> valueClock() {
        return builder -> builder.clock(VALUES);
    }
}
// end::value-clock-config[]
