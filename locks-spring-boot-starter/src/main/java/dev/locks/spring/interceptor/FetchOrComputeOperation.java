package dev.locks.spring.interceptor;

import dev.locks.ComputeOptions;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.expression.Expression;

/** One {@code @FetchOrCompute} method, parsed: its key, its options over the cache's defaults, its kind. */
public final class FetchOrComputeOperation {

    private final String method;

    private final KeyExpressions support;

    private final MethodParameters parameters;

    private final String text;

    private final Expression expression;

    private final Overrides<ComputeOptions> overrides;

    private final boolean optional;

    private String tagName;

    FetchOrComputeOperation(String method, KeyExpressions support, MethodParameters parameters, String text,
            Expression expression, UnaryOperator<ComputeOptions> overrides, boolean optional) {
        this.method = method;
        this.support = support;
        this.parameters = parameters;
        this.text = text;
        this.expression = expression;
        this.overrides = new Overrides<>(overrides);
        this.optional = optional;
    }

    /**
     * The key of this call.
     *
     * @throws IllegalArgumentException when the expression is {@code null}, or of a class that does not
     *         override {@code Object.toString()}
     */
    String key(MethodInvocation invocation) {
        Object value = KeyExpressions.evaluate(expression, support.context(parameters, invocation), this::describe);
        if (value == null) {
            throw new IllegalArgumentException(describe() + " is null: a key must not be null");
        }
        return KeyValues.key(value, "@FetchOrCompute", text, method, -1);
    }

    private String describe() {
        return "@FetchOrCompute key expression '" + text + "' of " + method;
    }

    /** The {@code name} tag of this method's meters and observation. */
    String tagName() {
        return tagName;
    }

    /** Sets the {@code name} tag ({@link FetchOrComputeOperationSource#tagName}); once, when parsed. */
    FetchOrComputeOperation tagged(String tagName) {
        this.tagName = tagName;
        return this;
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
