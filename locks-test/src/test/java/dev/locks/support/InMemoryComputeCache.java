package dev.locks.support;

import dev.locks.spi.RemoteComputeStore;
import dev.locks.test.InMemoryComputeServer;
import java.time.Duration;

/** A cache across nodes on a store of {@link dev.locks.test.InMemoryComputeServer}: what a backend writes. */
final class InMemoryComputeCache extends RemoteComputeCache {

    private InMemoryComputeCache(Builder builder, RemoteComputeStore store) {
        super(builder, store, ((InMemoryComputeServer.Node) store).serializer());
    }

    static Builder builder(RemoteComputeStore store) {
        return new Builder(store);
    }

    @Override
    protected boolean joinsComputationOf(String key) {
        return super.joinsComputationOf(key);
    }

    static final class Builder extends RemoteComputeCache.Builder<Builder> {

        private final RemoteComputeStore store;

        private Builder(RemoteComputeStore store) {
            super("in-memory-remote");
            this.store = requireSetting(store, "store");
        }

        @Override
        protected Builder pollInterval(Duration pollInterval) {
            return super.pollInterval(pollInterval);
        }

        InMemoryComputeCache build() {
            return new InMemoryComputeCache(this, store);
        }
    }
}
