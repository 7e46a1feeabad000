package dev.locks.support;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.contract.ComputeCacheContract;
import dev.locks.test.InMemoryComputeServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;

/**
 * The protocol across nodes, without Redis: caches of two or more nodes on one {@link InMemoryComputeServer} pass
 * the same contract as the in-memory backend. The server's time is the contract's manual clock, so expiries are
 * exact.
 */
class RemoteComputeCacheContractTest extends ComputeCacheContract {

    private final Map<ComputeCache, InMemoryComputeServer> servers = new ConcurrentHashMap<>();
    private final List<InMemoryComputeCache> nodes = new CopyOnWriteArrayList<>();

    @Override
    protected ComputeCache newCache(ComputeOptions defaults, LocksClock clock) {
        return node(new InMemoryComputeServer(clock), defaults, clock);
    }

    @Override
    protected ComputeCache newPeer(ComputeCache cache, ComputeOptions defaults, LocksClock clock) {
        return node(servers.get(cache), defaults, clock);
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(InMemoryComputeCache::close);
    }

    private ComputeCache node(InMemoryComputeServer server, ComputeOptions defaults, LocksClock clock) {
        InMemoryComputeCache node = InMemoryComputeCache.builder(server.node()).defaultOptions(defaults).clock(clock)
                .build();
        servers.put(node, server);
        nodes.add(node);
        return node;
    }
}
