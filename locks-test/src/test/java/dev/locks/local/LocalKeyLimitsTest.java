package dev.locks.local;

import dev.locks.LockRegistry;
import dev.locks.contract.KeyLimitsContract;
import java.time.Duration;

class LocalKeyLimitsTest extends KeyLimitsContract {

    @Override
    protected LockRegistry newRegistry(int maxKeys, int maxKeyLength) {
        return LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).maxKeys(maxKeys).maxKeyLength(maxKeyLength)
                .build();
    }

    @Override
    protected void build(int maxKeys, int maxKeyLength) {
        LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).maxKeys(maxKeys).maxKeyLength(maxKeyLength)
                .build().close();
    }
}
