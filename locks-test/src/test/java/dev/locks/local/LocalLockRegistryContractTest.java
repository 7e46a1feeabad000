package dev.locks.local;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.LockRegistryContract;
import java.time.Duration;

class LocalLockRegistryContractTest extends LockRegistryContract {

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return LocalLockRegistry.builder().defaultOptions(defaults).cleanupInterval(Duration.ZERO).build();
    }
}
