package dev.locks.spring.interceptor;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

/**
 * Returns the stored value of a {@code @FetchOrCompute} method's key, or runs the method as the
 * computation: at most one caller at a time per key runs it, the others wait for its result or its
 * exception (the same object, checked exceptions included, never wrapped). Options not given by the
 * annotation are the cache's defaults ({@code locks.compute.*}). Each call is observed ({@link CallObservations}:
 * an Observation {@code locks.compute} when the application has an {@code ObservationRegistry}), and the cache's
 * event of the call carries the method's name ({@link CallNames}), the {@code name} tag of the meters; the body
 * itself runs under its caller's name. A method returning Reactor's {@code Mono} gets a {@code Mono} back that does
 * all this on subscription, off the subscriber's thread ({@link ReactiveComputeCalls}); so does a Kotlin
 * {@code suspend} function, which Spring's AOP runs as a {@code Mono} and whose proxy awaits the one returned here.
 */
public class FetchOrComputeInterceptor implements MethodInterceptor {

    private final FetchOrComputeOperationSource operations;

    private final Supplier<ComputeCache> cache;

    private final Supplier<CallObservations> observations;

    /** Without observations. */
    public FetchOrComputeInterceptor(FetchOrComputeOperationSource operations, Supplier<ComputeCache> cache) {
        this(operations, cache, () -> CallObservations.NONE);
    }

    /**
     * @param cache looked up on the first call and kept, so that the interceptor can be created before the
     *        cache
     * @param observations looked up on the first call and kept, as the cache is
     */
    public FetchOrComputeInterceptor(FetchOrComputeOperationSource operations, Supplier<ComputeCache> cache,
            Supplier<CallObservations> observations) {
        this.operations = operations;
        this.cache = cache;
        this.observations = observations;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        FetchOrComputeOperation operation = operations.operation(invocation);
        if (operation == null) {
            return invocation.proceed();
        }
        ComputeCache values = cache.get();
        String key = operation.key(invocation);
        ComputeOptions options = operation.options(values.defaultOptions());
        if (operation.mono()) {
            return ReactiveComputeCalls.fetchOrCompute(invocation, operation, values, key, options, observations.get());
        }
        String previous = CallNames.enter(operation.tagName());
        try {
            Object stored = observations.get().observe(CallObservations.COMPUTE, operation.tagName(), values.backend(),
                    () -> values.fetchOrCompute(key, options, () -> operation.toStored(proceed(invocation, previous))));
            return operation.toResult(stored);
        }
        finally {
            CallNames.restore(previous);
        }
    }

    /** Runs the body under its caller's name ({@code callerName}), so that its own calls are not tagged as this one. */
    private static Object proceed(MethodInvocation invocation, String callerName) {
        String name = CallNames.enter(callerName);
        try {
            return invocation.proceed();
        }
        catch (Throwable ex) {
            throw Throwables.<RuntimeException>sneaky(ex);
        }
        finally {
            CallNames.restore(name);
        }
    }
}
