/**
 * A slow exchange-rate service behind Spring's own {@code @Cacheable(sync = true)}, with a Caffeine cache on each
 * instance: with {@code locks.cache.single-flight=true} a missing rate is loaded once across all instances.
 */
package dev.locks.sample.rates;
