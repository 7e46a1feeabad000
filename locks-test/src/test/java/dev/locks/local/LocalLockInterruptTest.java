package dev.locks.local;

import dev.locks.LockRegistry;
import dev.locks.contract.LockInterruptContract;
import java.time.Duration;

/** Interrupts on the in-memory backend (issue 9, observation 4). */
class LocalLockInterruptTest extends LockInterruptContract {

    @Override
    protected LockRegistry newRegistry() {
        return LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).build();
    }
}
