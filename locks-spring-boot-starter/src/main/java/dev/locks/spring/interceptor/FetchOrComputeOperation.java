package dev.locks.spring.interceptor;

import dev.locks.ComputeOptions;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInvocation;

/**
 * One {@code @FetchOrCompute} method, parsed: its stored key ({@code name + ":" + key}), its options over the
 * cache's defaults, its kind.
 */
public final class FetchOrComputeOperation {

    private final ComputedKey key;

    private final Overrides<ComputeOptions> overrides;

    private final boolean optional;

    private final String tagName;

    FetchOrComputeOperation(ComputedKey key, String tagName, UnaryOperator<ComputeOptions> overrides,
            boolean optional) {
        this.key = key;
        this.tagName = tagName;
        this.overrides = new Overrides<>(overrides);
        this.optional = optional;
    }

    /** The namespace of the method's values: its {@code name}, or {@code "<fully qualified class name>.<method>"}. */
    public String name() {
        return key.name();
    }

    /**
     * The {@code name} tag of this method's meters and observation (SPEC section 7): the annotation's
     * {@code name}, or {@code <simple class name>.<method name>} as for {@code @Locked} when it has none.
     */
    String tagName() {
        return tagName;
    }

    /**
     * The stored key of this call: {@code name + ":" + } the key expression's value.
     *
     * @throws IllegalArgumentException when the expression is {@code null}
     */
    String key(MethodInvocation invocation) {
        return key.of(invocation);
    }

    /** The options: the cache's defaults with the annotation's attributes applied. */
    ComputeOptions options(ComputeOptions defaults) {
        return overrides.over(defaults);
    }

    /** What the cache stores of the method's result: the content of an {@code Optional}, else the result. */
    Object toStored(Object result) {
        return optional && result != null ? ((Optional<?>) result).orElse(null) : result;
    }

    /** What the caller gets back of a stored value. */
    Object toResult(Object stored) {
        return optional ? Optional.ofNullable(stored) : stored;
    }
}
