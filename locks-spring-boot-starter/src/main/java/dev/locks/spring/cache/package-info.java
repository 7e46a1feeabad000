/**
 * Spring's cache abstraction with misses loaded once across all nodes ({@code locks.cache.single-flight}): the
 * application's {@code CacheManager} beans hand out {@link dev.locks.spring.cache.SingleFlightCache}s, whose
 * {@code @Cacheable(sync = true)} misses go through the locks backend's compute cache.
 */
package dev.locks.spring.cache;
