package dev.locks.spring.interceptor;

import org.aopalliance.intercept.MethodInvocation;

/** One {@code @EvictComputed} method, parsed: the stored key it invalidates ({@code name + ":" + key}). */
public final class EvictComputedOperation {

    private final ComputedKey key;

    EvictComputedOperation(ComputedKey key) {
        this.key = key;
    }

    /** The namespace of the values it evicts (the annotation's {@code name}). */
    public String name() {
        return key.name();
    }

    /**
     * The stored key this call evicts.
     *
     * @throws IllegalArgumentException when the expression is {@code null}
     */
    String key(MethodInvocation invocation) {
        return key.of(invocation);
    }
}
