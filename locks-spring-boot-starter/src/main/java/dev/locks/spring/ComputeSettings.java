package dev.locks.spring;

import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.support.AbstractComputeCache;
import org.springframework.beans.factory.ObjectProvider;

/**
 * What every backend's compute cache bean (the in-memory one included) takes from the application, the same for
 * each: the default options of {@code locks.compute.*} (with refresh-ahead's and stale-if-error's settings), a {@link LocksClock} bean if any, and every {@link LocksObserver} bean
 * composed in order.
 */
final class ComputeSettings {

    private ComputeSettings() {
    }

    static <B extends AbstractComputeCache.Builder<B>> B apply(B builder, LocksProperties properties,
            ObjectProvider<LocksObserver> observers, ObjectProvider<LocksClock> clock) {
        return builder.defaultOptions(properties.toComputeOptions())
                .errorBackoff(properties.getCompute().getErrorBackoff())
                .refreshMaxConcurrent(properties.getCompute().getRefresh().getMaxConcurrent())
                .clock(clock.getIfAvailable(LocksClock::system))
                .observer(CompositeLocksObserver.of(observers.orderedStream().toList()));
    }
}
