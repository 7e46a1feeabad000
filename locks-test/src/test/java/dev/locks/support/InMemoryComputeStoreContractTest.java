package dev.locks.support;

import dev.locks.LocksClock;
import dev.locks.contract.RemoteComputeStoreContract;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.test.InMemoryComputeServer;

/** {@link RemoteComputeStoreContract} on an {@link InMemoryComputeServer}, in real time. */
class InMemoryComputeStoreContractTest extends RemoteComputeStoreContract {

    private final InMemoryComputeServer server = new InMemoryComputeServer(LocksClock.system());

    @Override
    protected RemoteComputeStore newStore() {
        return server.node();
    }
}
