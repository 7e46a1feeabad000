/**
 * Spring's {@code Cache.get(key, loader)} (what {@code @Cacheable(sync = true)} calls) with and without the
 * starter's single-flight wrapper ({@code locks.cache.single-flight}): the cost on a hit, and a stampede over two
 * nodes with a Caffeine cache each, beside Redisson's {@code RedissonSpringCacheManager}.
 */
package dev.locks.benchmarks.cacheable;
