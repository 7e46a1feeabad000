package dev.locks.spring.interceptor;

import dev.locks.ComputeCache;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

/**
 * Runs an {@code @EvictComputed} method, then, if it returned normally, invalidates its stored key
 * ({@link ComputeCache#invalidate}: a computation of that key in flight is not stored either). A method that
 * throws evicts nothing, and its exception propagates as it is. The key is evaluated before the method runs,
 * so that the method cannot change what it evicts by changing its arguments.
 */
public class EvictComputedInterceptor implements MethodInterceptor {

    private final EvictComputedOperationSource operations;

    private final Supplier<ComputeCache> cache;

    /**
     * @param cache looked up on the first call and kept, so that the interceptor can be created before the
     *        cache
     */
    public EvictComputedInterceptor(EvictComputedOperationSource operations, Supplier<ComputeCache> cache) {
        this.operations = operations;
        this.cache = cache;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        EvictComputedOperation operation = operations.operation(invocation);
        if (operation == null) {
            return invocation.proceed();
        }
        String key = operation.key(invocation);
        Object result = invocation.proceed();
        cache.get().invalidate(key);
        return result;
    }
}
