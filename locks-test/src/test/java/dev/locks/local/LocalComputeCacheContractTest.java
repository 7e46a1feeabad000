package dev.locks.local;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.contract.ComputeCacheContract;

class LocalComputeCacheContractTest extends ComputeCacheContract {

    @Override
    protected ComputeCache newCache(ComputeOptions defaults, LocksClock clock) {
        return LocalComputeCache.builder().defaultOptions(defaults).clock(clock).build();
    }
}
