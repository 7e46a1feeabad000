package dev.locks.spring.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.expression.Expression;

/**
 * The stored key of a {@code @FetchOrCompute} value, as {@code @FetchOrCompute} and {@code @EvictComputed}
 * both name it: the values' name, {@code ":"}, and the value of the key expression (parsed and checked once).
 */
final class ComputedKey {

    private final String annotation;

    private final String name;

    private final String prefix;

    private final String method;

    private final KeyExpressions support;

    private final MethodParameters parameters;

    private final String text;

    private final Expression expression;

    private ComputedKey(String annotation, String name, String method, KeyExpressions support,
            MethodParameters parameters, String text, Expression expression) {
        this.annotation = annotation;
        this.name = name;
        this.prefix = name + ":";
        this.method = method;
        this.support = support;
        this.parameters = parameters;
        this.text = text;
        this.expression = expression;
    }

    /**
     * The key of {@code method}'s annotation, its expression parsed and checked.
     *
     * @param name the annotation's name; empty for {@code "<fully qualified class name>.<method name>"}
     */
    static ComputedKey parse(Class<? extends Annotation> annotationType, String name, String text, Method method,
            Class<?> targetClass, AttributeValues values, KeyExpressions expressions) {
        MethodParameters parameters = expressions.parameters(method);
        Expression expression = values.expression("key", text, expressions, parameters);
        String namespace = name.isEmpty() ? targetClass.getName() + "." + method.getName() : name;
        return new ComputedKey("@" + annotationType.getSimpleName(), namespace,
                MethodDescriptions.describe(targetClass, method), expressions, parameters, text, expression);
    }

    /** The namespace of the values. */
    String name() {
        return name;
    }

    /**
     * The stored key of this call.
     *
     * @throws IllegalArgumentException when the expression is {@code null}
     */
    String of(MethodInvocation invocation) {
        Object value = KeyExpressions.evaluate(expression, support.context(parameters, invocation), this::describe);
        if (value == null) {
            throw new IllegalArgumentException(describe() + " is null: a key must not be null");
        }
        return prefix.concat(KeyValues.key(value, annotation, text, method, -1));
    }

    private String describe() {
        return annotation + " key expression '" + text + "' of " + method;
    }
}
