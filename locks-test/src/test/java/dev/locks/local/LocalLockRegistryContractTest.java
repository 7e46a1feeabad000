package dev.locks.local;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import dev.locks.contract.LockRegistryContract;
import dev.locks.contract.SharedLocksContract;
import java.time.Duration;
import org.junit.jupiter.api.Nested;

class LocalLockRegistryContractTest extends LockRegistryContract {

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return LocalLockRegistry.builder().defaultOptions(defaults).cleanupInterval(Duration.ZERO).build();
    }

    /** {@link LockRegistry#acquireAsync} on the same backend. */
    @Nested
    class AsyncAcquire extends AsyncAcquireContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return LocalLockRegistryContractTest.this.newRegistry(defaults);
        }
    }

    /** Shared and counted locks on the same backend. */
    @Nested
    class SharedLocks extends SharedLocksContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return LocalLockRegistryContractTest.this.newRegistry(defaults);
        }
    }
}
