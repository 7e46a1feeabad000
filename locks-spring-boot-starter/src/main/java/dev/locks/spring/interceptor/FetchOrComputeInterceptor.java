package dev.locks.spring.interceptor;

import dev.locks.ComputeCache;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

/**
 * Returns the stored value of a {@code @FetchOrCompute} method's key, or runs the method as the
 * computation: at most one caller at a time per key runs it, the others wait for its result or its
 * exception (the same object, checked exceptions included, never wrapped). Options not given by the
 * annotation are the cache's defaults ({@code locks.compute.*}).
 */
public class FetchOrComputeInterceptor implements MethodInterceptor {

    private final FetchOrComputeOperationSource operations;

    private final Supplier<ComputeCache> cache;

    /**
     * @param cache looked up on the first call and kept, so that the interceptor can be created before the
     *        cache
     */
    public FetchOrComputeInterceptor(FetchOrComputeOperationSource operations, Supplier<ComputeCache> cache) {
        this.operations = operations;
        this.cache = cache;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        FetchOrComputeOperation operation = operations.operation(invocation);
        if (operation == null) {
            return invocation.proceed();
        }
        ComputeCache values = cache.get();
        Object stored = values.fetchOrCompute(operation.key(invocation), operation.options(values.defaultOptions()),
                () -> operation.toStored(proceed(invocation)));
        return operation.toResult(stored);
    }

    private static Object proceed(MethodInvocation invocation) {
        try {
            return invocation.proceed();
        }
        catch (Throwable ex) {
            throw Throwables.<RuntimeException>sneaky(ex);
        }
    }
}
