package dev.locks.spring;

/**
 * Adjusts the builder of the {@code LockRegistry} that the starter auto-configures, as
 * {@code CacheManagerCustomizer} does for Spring's cache manager: a way to change what {@code locks.*} cannot
 * express without replacing the registry bean (and losing the meters, observers and settings the starter
 * builds it with).
 *
 * <p>{@code B} is the builder of the backend to adjust, {@code dev.locks.local.LocalLockRegistry.Builder} or
 * {@code dev.locks.redis.RedisLockRegistry.Builder}; a customizer whose type does not match the running backend
 * is skipped. Customizers run after the {@code locks.*} properties, observers and clock are applied (so what
 * they set wins), in {@link org.springframework.core.annotation.Order @Order}, and never on a registry bean of
 * the application's own.
 *
 * <pre>{@code
 * @Bean
 * LockRegistryBuilderCustomizer<LocalLockRegistry.Builder> longerSweepBatches() {
 *     return builder -> builder.cleanupBatchSize(1_000);
 * }
 * }</pre>
 *
 * @param <B> the builder type of the backend it adjusts
 */
@FunctionalInterface
public interface LockRegistryBuilderCustomizer<B> {

    /** Adjusts the builder, just before the registry is built. */
    void customize(B builder);
}
