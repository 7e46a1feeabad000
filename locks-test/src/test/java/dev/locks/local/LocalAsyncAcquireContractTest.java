package dev.locks.local;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import java.time.Duration;

class LocalAsyncAcquireContractTest extends AsyncAcquireContract {

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return LocalLockRegistry.builder().defaultOptions(defaults).cleanupInterval(Duration.ZERO).build();
    }
}
