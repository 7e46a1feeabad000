package dev.locks.support;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.FreshValuesContract;
import dev.locks.test.InMemoryComputeServer;
import java.time.Duration;

/**
 * Section 11 through the core's protocol across nodes, on two nodes of one {@link InMemoryComputeServer} whose time
 * is the contract's manual clock: what every distributed backend gets from the core.
 */
class RemoteFreshValuesContractTest extends FreshValuesContract {

    private InMemoryComputeServer server;

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, LocksClock clock, LocksObserver observer,
            Duration errorBackoff, int refreshMaxConcurrent, ComputeCache first) {
        if (first == null) {
            server = new InMemoryComputeServer(clock);
        }
        return InMemoryComputeCache.builder(server.node()).defaultOptions(defaults).clock(clock).observer(observer)
                .errorBackoff(errorBackoff).refreshMaxConcurrent(refreshMaxConcurrent).build();
    }
}
