package dev.locks.local;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.FreshValuesContract;
import java.time.Duration;

/** Section 11 in one JVM: both "nodes" are the same cache. */
class LocalFreshValuesContractTest extends FreshValuesContract {

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, LocksClock clock, LocksObserver observer,
            Duration errorBackoff, int refreshMaxConcurrent, ComputeCache first) {
        return first != null ? first : LocalComputeCache.builder().defaultOptions(defaults).clock(clock)
                .observer(observer).errorBackoff(errorBackoff).refreshMaxConcurrent(refreshMaxConcurrent).build();
    }
}
