package dev.locks.redis;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.contract.AsyncAcquireContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Redis registry's asynchronous acquire keeps the same promises as the in-memory one's. */
class RedisAsyncAcquireContractTest extends AsyncAcquireContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return RedisLockRegistry.builder(redis.connectionFactory()).defaultOptions(defaults)
                .cleanupInterval(Duration.ZERO).build();
    }

    /** 8 x 200: each acquisition is two round trips to a real server. */
    @Override
    protected int mutualExclusionRounds() {
        return 200;
    }
}
