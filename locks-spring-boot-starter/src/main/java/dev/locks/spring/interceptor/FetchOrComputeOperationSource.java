package dev.locks.spring.interceptor;

import dev.locks.ComputeOptions;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.spring.AcquireOptionValues;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Parses {@link FetchOrCompute} annotations once per bean class: the name and key expression, the duration
 * attributes, and the return type.
 *
 * <p>Return types: a value (stored as is); {@code Optional} (its content is stored, an empty one stores
 * nothing, as a {@code null} result, and callers get an {@code Optional} back); Reactor's {@code Mono} (its value is
 * stored, an empty one stores nothing; {@link ReactiveComputeCalls}); a Kotlin {@code suspend} function, which
 * Spring's AOP runs as a {@code Mono} of its result when kotlinx-coroutines-reactor and kotlin-reflect are on the
 * classpath (without them it is rejected at startup, as the cache would store what it returns at its first
 * suspension). A {@code Flux} or a Kotlin {@code Flow} (a stream), other asynchronous and reactive types
 * ({@code CompletableFuture}, {@code Future}, ...) and {@code void} (or {@code Unit}) are rejected at startup: the
 * cache would store the future, not the value.
 */
public class FetchOrComputeOperationSource extends AnnotationOperationSource<FetchOrCompute, FetchOrComputeOperation> {

    private final Environment environment;

    private final KeyExpressions expressions;

    public FetchOrComputeOperationSource(Environment environment, BeanFactory beanFactory) {
        super(FetchOrCompute.class);
        this.environment = environment;
        this.expressions = new KeyExpressions(beanFactory);
    }

    @Override
    protected FetchOrComputeOperation parse(FetchOrCompute annotation, Method method, Class<?> targetClass) {
        AttributeValues values = new AttributeValues(environment, FetchOrCompute.class, targetClass, method);
        boolean optional = checkReturnType(method, values);
        String name = annotation.name().trim();
        ComputedKey key = ComputedKey.parse(FetchOrCompute.class, name, annotation.key(), method, targetClass, values,
                expressions);
        String tagName = name.isEmpty() ? MethodDescriptions.tagName(targetClass, method) : name;
        return new FetchOrComputeOperation(key, tagName, overrides(annotation, values), optional,
                ReturnTypes.isMono(method.getReturnType()) || ReturnTypes.isSuspending(method));
    }

    private UnaryOperator<ComputeOptions> overrides(FetchOrCompute annotation, AttributeValues values) {
        ComputeOptions probe = ComputeOptions.defaults();
        UnaryOperator<ComputeOptions> ttl = values.option("ttl", annotation.ttl(), probe, text -> {
            Duration given = AcquireOptionValues.duration("ttl", text);
            return options -> options.withoutRefreshAfter().withTtl(given);
        });
        UnaryOperator<ComputeOptions> refreshAfter = values.option("refreshAfter", annotation.refreshAfter(),
                probe.withTtl(Duration.ZERO), text -> {
                    Duration given = AcquireOptionValues.duration("refreshAfter", text);
                    return options -> options.withRefreshAfter(given);
                });
        UnaryOperator<ComputeOptions> freshness = freshness(ttl, refreshAfter);
        if (freshness != null) {
            ComputeOptions defaults = configuredDefaults();
            try {
                freshness.apply(defaults);
            } catch (IllegalArgumentException ex) {
                throw values.invalid(annotation.refreshAfter().isEmpty() ? "ttl" : "refreshAfter",
                        annotation.refreshAfter().isEmpty() ? annotation.ttl() : annotation.refreshAfter(),
                        ex.getMessage() + (annotation.ttl().isEmpty() ? " (ttl: locks.compute.default-ttl)" : "")
                                + (annotation.refreshAfter().isEmpty() ? " (refreshAfter: locks.compute.refresh-after)"
                                        : ""),
                        "Give a refreshAfter shorter than the ttl (or a ttl of 0, no expiry).");
            }
        }
        return AttributeValues.all(
                freshness,
                values.option("staleIfError", annotation.staleIfError(), probe, text -> {
                    Duration staleIfError = AcquireOptionValues.duration("staleIfError", text);
                    return options -> options.withStaleIfError(staleIfError);
                }),
                values.option("computeTimeout", annotation.computeTimeout(), probe, text -> {
                    Duration timeout = AcquireOptionValues.duration("computeTimeout", text);
                    return options -> options.withComputeTimeout(timeout);
                }),
                values.option("waitTime", annotation.waitTime(), probe, text -> {
                    Duration waitTime = AcquireOptionValues.duration("waitTime", text);
                    return options -> options.withWaitTime(waitTime);
                }));
    }

    /**
     * The TTL and the refreshAfter of a call as one step, whichever of them the annotation gives (the other is the
     * default's): a refreshAfter must be shorter than the TTL it goes with, not than the default's.
     */
    private static UnaryOperator<ComputeOptions> freshness(UnaryOperator<ComputeOptions> ttl,
            UnaryOperator<ComputeOptions> refreshAfter) {
        if (ttl == null && refreshAfter == null) {
            return null;
        }
        return options -> {
            Duration defaultRefresh = options.refreshAfter().orElse(null);
            ComputeOptions withTtl = ttl == null ? options.withoutRefreshAfter() : ttl.apply(options);
            if (refreshAfter != null) {
                return refreshAfter.apply(withTtl);
            }
            return defaultRefresh == null ? withTtl : withTtl.withRefreshAfter(defaultRefresh);
        };
    }

    /**
     * The defaults of {@code locks.compute.*} that a TTL and refreshAfter are checked against at startup (the cache's
     * own come from the same properties); the library's when they cannot be read (the properties' own check names
     * them).
     */
    private ComputeOptions configuredDefaults() {
        try {
            Binder binder = Binder.get(environment);
            ComputeOptions defaults = ComputeOptions.defaults().withTtl(binder.bind("locks.compute.default-ttl",
                    Duration.class).orElse(ComputeOptions.defaults().ttl()));
            Duration refreshAfter = binder.bind("locks.compute.refresh-after", Duration.class).orElse(null);
            return refreshAfter == null ? defaults : defaults.withRefreshAfter(refreshAfter);
        } catch (RuntimeException unreadable) {
            return ComputeOptions.defaults();
        }
    }

    /** Whether the method returns an {@code Optional}; rejects what cannot be stored. */
    private static boolean checkReturnType(Method method, AttributeValues values) {
        boolean suspending = ReturnTypes.isSuspending(method);
        if (suspending) {
            String missing = ReturnTypes.missingForSuspending();
            if (missing != null) {
                throw values.invalid(null, null, "it is a Kotlin suspend function, and without " + missing + " on the"
                        + " classpath Spring calls it as a plain method, which returns at its first suspension point:"
                        + " the cache would store what the call returned first, not the value",
                        "Add " + missing + " to the application (Spring then runs suspend functions as coroutines whose"
                                + " result @FetchOrCompute stores), or call ComputeCache.fetchOrCompute inside the"
                                + " coroutine (on a dispatcher that may block, such as Dispatchers.IO).");
            }
        }
        Class<?> type = suspending ? ReturnTypes.suspendingResult(method) : method.getReturnType();
        if (type == void.class || type == Void.class || type.getName().equals("kotlin.Unit")) {
            throw values.invalid(null, null, "it returns nothing, so there is no value to store",
                    "Return the computed value, or use @Locked to run the method under a lock.");
        }
        if (ReturnTypes.isFlux(type) || ReturnTypes.isFlow(type)) {
            throw values.invalid(null, null, "it returns " + (ReturnTypes.isFlux(type) ? "reactor.core.publisher.Flux"
                    : "kotlinx.coroutines.flow.Flow") + ", a stream of values, and the cache stores one value per key"
                    + " (as Spring's @Cacheable does not cache streams either)",
                    "Return a Mono of the whole result (flux.collectList(), or a suspend function returning"
                            + " flow.toList()), or use @Locked to run the stream under a lock.");
        }
        if (!suspending && ReturnTypes.isMono(type)) {
            return false;
        }
        if (ReturnTypes.isDeferred(type)) {
            throw values.invalid(null, null, "it returns " + type.getName() + ": the cache would store the"
                    + " future or publisher, not its value",
                    "Return the value itself or a Mono of it (call the method from asynchronous code if need be), or use"
                            + " ComputeCache.fetchOrCompute from inside the asynchronous work.");
        }
        return type == Optional.class;
    }
}
