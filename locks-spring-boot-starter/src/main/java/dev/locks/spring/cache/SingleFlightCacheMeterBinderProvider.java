package dev.locks.spring.cache;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.cache.metrics.CacheMeterBinderProvider;
import org.springframework.boot.util.LambdaSafe;
import org.springframework.cache.Cache;
import org.springframework.cache.transaction.TransactionAwareCacheDecorator;

/**
 * The cache metrics of a {@link SingleFlightCache} are those of the cache it wraps: Spring Boot's cache metrics
 * find a binder by the cache's type ({@code CaffeineCache}, {@code RedisCache}, ...), which a wrapped cache no
 * longer has, so this provider hands the wrapped cache to the application's other providers, with the same tags
 * ({@code name}, {@code cache.manager}); a transaction-aware cache is bound as the cache it decorates, as Spring Boot
 * does.
 */
public final class SingleFlightCacheMeterBinderProvider implements CacheMeterBinderProvider<SingleFlightCache> {

    private final ObjectProvider<CacheMeterBinderProvider<?>> providers;

    /**
     * @param providers every provider of the application, this one included (skipped), looked up when a cache is
     *        bound
     */
    public SingleFlightCacheMeterBinderProvider(ObjectProvider<CacheMeterBinderProvider<?>> providers) {
        this.providers = providers;
    }

    @Override
    @SuppressWarnings("unchecked")
    public @Nullable MeterBinder getMeterBinder(SingleFlightCache cache, Iterable<Tag> tags) {
        Cache wrapped = cache.getTargetCache();
        Cache target = wrapped instanceof TransactionAwareCacheDecorator decorator ? decorator.getTargetCache() : wrapped;
        List<CacheMeterBinderProvider<?>> others = providers.orderedStream()
                .filter(provider -> !(provider instanceof SingleFlightCacheMeterBinderProvider))
                .toList();
        return LambdaSafe.callbacks(CacheMeterBinderProvider.class, others, target)
                .withLogger(SingleFlightCacheMeterBinderProvider.class)
                .invokeAnd(provider -> provider.getMeterBinder(target, tags))
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    }
}
