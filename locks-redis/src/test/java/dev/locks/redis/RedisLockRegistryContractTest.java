package dev.locks.redis;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import dev.locks.contract.LockRegistryContract;
import dev.locks.contract.SharedLocksContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Redis registry passes the same contract as the in-memory one. */
class RedisLockRegistryContractTest extends LockRegistryContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return RedisLockRegistry.builder(redis.connectionFactory()).defaultOptions(defaults)
                .cleanupInterval(Duration.ZERO).build();
    }

    /**
     * 8 x 2,000 instead of 8 x 10,000: each acquisition here is two round trips to a real server, and 160,000
     * of them took 20 s to a minute on a loaded 2-core machine without finding anything 16,000 do not.
     */
    @Override
    protected int mutualExclusionRounds() {
        return 2_000;
    }

    /** {@link LockRegistry#acquireAsync} on the same backend. */
    @Nested
    class AsyncAcquire extends AsyncAcquireContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return RedisLockRegistryContractTest.this.newRegistry(defaults);
        }
    }

    /** Shared and counted locks on the same backend. */
    @Nested
    class SharedLocks extends SharedLocksContract {

        @Override
        protected LockRegistry newRegistry(AcquireOptions defaults) {
            return RedisLockRegistryContractTest.this.newRegistry(defaults);
        }

        /** 200 instead of 500: each acquisition is two round trips to a real server. */
        @Override
        protected int rounds() {
            return 200;
        }
    }
}
