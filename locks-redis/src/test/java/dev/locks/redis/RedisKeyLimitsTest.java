package dev.locks.redis;

import dev.locks.LockRegistry;
import dev.locks.contract.KeyLimitsContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Key limits on Redis: rejected in the node, before any round trip could stall the shared server. */
class RedisKeyLimitsTest extends KeyLimitsContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected LockRegistry newRegistry(int maxKeys, int maxKeyLength) {
        return builder(maxKeys, maxKeyLength).build();
    }

    @Override
    protected void build(int maxKeys, int maxKeyLength) {
        builder(maxKeys, maxKeyLength).build().close();
    }

    private static RedisLockRegistry.Builder builder(int maxKeys, int maxKeyLength) {
        return RedisLockRegistry.builder(redis.connectionFactory()).cleanupInterval(Duration.ZERO).maxKeys(maxKeys)
                .maxKeyLength(maxKeyLength);
    }
}
