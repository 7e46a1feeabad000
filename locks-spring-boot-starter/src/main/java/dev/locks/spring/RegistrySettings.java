package dev.locks.spring;

import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.support.AbstractLockRegistry;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;

/**
 * What every backend's registry bean takes from the application, the same for each: the default options of
 * {@code locks.*}, the key limits, the sweep batch size and the watchdog, a {@link LocksClock} bean if any, and every
 * {@link LocksObserver} bean composed in order. The registry never sweeps by itself: the starter's scheduled
 * sweeper does, unless {@code locks.cleanup.enabled=false}.
 */
final class RegistrySettings {

    private RegistrySettings() {
    }

    static <B extends AbstractLockRegistry.Builder<B>> B apply(B builder, LocksProperties properties,
            ObjectProvider<LocksObserver> observers, ObjectProvider<LocksClock> clock) {
        return builder.defaultOptions(properties.toAcquireOptions())
                .cleanupInterval(Duration.ZERO)
                .cleanupBatchSize(properties.getCleanup().getBatchSize())
                .maxKeys(properties.getMaxKeys())
                .maxKeyLength(properties.getMaxKeyLength())
                .watchdog(properties.getWatchdog().isEnabled())
                .clock(clock.getIfAvailable(LocksClock::system))
                .observer(CompositeLocksObserver.of(observers.orderedStream().toList()));
    }

    /**
     * {@code spring.application.name}, which a distributed backend's lock owners name beside their host (SPEC
     * section 10), so that the endpoint shows which instance runs a job; {@code null} when not set.
     */
    static String applicationName(Environment environment) {
        return environment.getProperty("spring.application.name");
    }
}
