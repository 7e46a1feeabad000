package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.LockInterruptContract;
import dev.locks.test.InMemoryLockServer;
import java.time.Duration;

/** Interrupts on the engine in front of a remote store (issue 9, observation 4). */
class StoreLockInterruptTest extends LockInterruptContract {

    @Override
    protected LockRegistry newRegistry() {
        InMemoryLockServer server = new InMemoryLockServer(LocksClock.system());
        return new EngineLockRegistry(new LockEngine.Settings("shared", AcquireOptions.defaults(), Duration.ZERO,
                100, false, LocksClock.system(), LocksObserver.NONE), server.node(true)) {
        };
    }
}
