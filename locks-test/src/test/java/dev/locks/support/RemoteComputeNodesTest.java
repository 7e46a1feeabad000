package dev.locks.support;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.contract.ComputeNodesContract;
import dev.locks.test.InMemoryComputeServer;

/** Two nodes on one {@link InMemoryComputeServer}, in real time: the protocol across nodes without Redis. */
class RemoteComputeNodesTest extends ComputeNodesContract {

    private final InMemoryComputeServer server = new InMemoryComputeServer(LocksClock.system());

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, boolean first) {
        return InMemoryComputeCache.builder(server.node()).defaultOptions(defaults).build();
    }

    @Override
    protected boolean joinsComputationOf(ComputeCache node, String key) {
        return ((InMemoryComputeCache) node).joinsComputationOf(key);
    }
}
