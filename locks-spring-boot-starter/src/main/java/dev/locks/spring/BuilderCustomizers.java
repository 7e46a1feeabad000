package dev.locks.spring;

import java.util.List;
import java.util.function.BiConsumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.util.LambdaSafe;

/**
 * Applies the application's {@link LockRegistryBuilderCustomizer} and {@link ComputeCacheBuilderCustomizer}
 * beans to the starter's builders: those whose type argument matches the builder (as Spring Boot's
 * {@code CacheManagerCustomizers} do, lambdas included), in order.
 */
final class BuilderCustomizers {

    private static final Log logger = LogFactory.getLog(BuilderCustomizers.class);

    private BuilderCustomizers() {
    }

    static <B> B lockRegistry(ObjectProvider<LockRegistryBuilderCustomizer<?>> customizers, B builder) {
        return apply(LockRegistryBuilderCustomizer.class, customizers, builder,
                (customizer, target) -> ((LockRegistryBuilderCustomizer<Object>) customizer).customize(target));
    }

    static <B> B computeCache(ObjectProvider<ComputeCacheBuilderCustomizer<?>> customizers, B builder) {
        return apply(ComputeCacheBuilderCustomizer.class, customizers, builder,
                (customizer, target) -> ((ComputeCacheBuilderCustomizer<Object>) customizer).customize(target));
    }

    @SuppressWarnings({ "unchecked", "rawtypes" })
    private static <C, B> B apply(Class<C> type, ObjectProvider<? extends C> customizers, B builder,
            BiConsumer<C, Object> customize) {
        List<C> ordered = (List) customizers.orderedStream().toList();
        LambdaSafe.callbacks(type, ordered, builder).withLogger(logger)
                .invoke(customizer -> customize.accept(customizer, builder));
        return builder;
    }
}
