package dev.locks.spring;

/**
 * Adjusts the builder of the {@code ComputeCache} that the starter auto-configures (see
 * {@link LockRegistryBuilderCustomizer}, which it mirrors): {@code B} is
 * {@code dev.locks.local.LocalComputeCache.Builder}, {@code dev.locks.redis.RedisComputeCache.Builder} or
 * {@code dev.locks.jdbc.JdbcComputeCache.Builder}, a
 * customizer of another type is skipped, and customizers run last, in
 * {@link org.springframework.core.annotation.Order @Order}.
 *
 * <p>In an application's tests, it gives the value store a clock of its own, so that a test advances value
 * TTLs without freezing lock waits (a {@code LocksClock} bean times both):
 *
 * <pre>{@code
 * @Bean
 * ComputeCacheBuilderCustomizer<LocalComputeCache.Builder> manualValueClock(ManualClock clock) {
 *     return builder -> builder.clock(clock);
 * }
 * }</pre>
 *
 * @param <B> the builder type of the backend it adjusts
 */
@FunctionalInterface
public interface ComputeCacheBuilderCustomizer<B> {

    /** Adjusts the builder, just before the cache is built. */
    void customize(B builder);
}
