package dev.locks.redis;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.LockRegistryContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
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
}
