package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.LockRegistry;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.LockRegistryContract;
import dev.locks.contract.SharedLocksContract;
import dev.locks.test.InMemoryLockServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The engine in front of a remote store passes the same contract as the in-memory backend. The registries of one
 * test are nodes of one server, as on a real backend.
 */
class StoreLockRegistryContractTest extends LockRegistryContract {

    private final InMemoryLockServer server = new InMemoryLockServer(LocksClock.system());

    @Override
    protected LockRegistry newRegistry(AcquireOptions defaults) {
        return new EngineLockRegistry(new LockEngine.Settings("shared", defaults, Duration.ZERO, 100, false,
                LocksClock.system(), LocksObserver.NONE), server.node(true)) {
        };
    }

    /** Shared and counted locks are in memory only for now: this backend refuses them, naming itself. */
    @Test
    void sharedAndCountedLocksShouldBeRefusedNamingTheBackend() throws Exception {
        SharedLocksContract.assertRefusedBy(registry(AcquireOptions.defaults()));
    }
}
