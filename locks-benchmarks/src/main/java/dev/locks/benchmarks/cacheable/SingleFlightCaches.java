package dev.locks.benchmarks.cacheable;

import dev.locks.ComputeCache;
import dev.locks.spring.cache.SingleFlightCacheManagers;
import dev.locks.spring.interceptor.CallObservations;
import java.util.Set;
import org.springframework.cache.CacheManager;

/**
 * A cache manager wrapped as the starter wraps the application's {@code CacheManager} beans with
 * {@code locks.cache.single-flight=true}: through its post-processor, so that the benchmarks measure what an
 * application runs.
 */
final class SingleFlightCaches implements AutoCloseable {

    private final SingleFlightCacheManagers managers;

    SingleFlightCaches(ComputeCache computeCache) {
        this.managers = new SingleFlightCacheManagers(Set.of(), () -> computeCache, () -> CallObservations.NONE);
    }

    /** {@code manager}, wrapped as the bean {@code cacheManager}. */
    CacheManager wrap(CacheManager manager) {
        return (CacheManager) managers.postProcessAfterInitialization(manager, "cacheManager");
    }

    @Override
    public void close() {
        managers.destroy();
    }
}
