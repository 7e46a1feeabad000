package dev.locks.redis;

import dev.locks.LockRegistry;
import dev.locks.contract.LockInterruptContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Interrupts on Redis (issue 9, observation 4): Lettuce fails a command on a thread whose interrupt status is
 * set, so every round trip must run with the status cleared and restored.
 */
class RedisLockInterruptTest extends LockInterruptContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected LockRegistry newRegistry() {
        return RedisLockRegistry.builder(redis.connectionFactory()).cleanupInterval(Duration.ZERO).build();
    }

    /** 200 rather than 500: each waiter's attempts are round trips to a real server on a shared machine. */
    @Override
    protected int waiters() {
        return 200;
    }
}
