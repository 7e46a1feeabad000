package dev.locks.spring.interceptor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.util.ObjectUtils;

/**
 * The keys of one {@code @Locked} method: a constant, or the values of its expressions, where a collection
 * or an array stands for each of its elements.
 */
final class LockKeys {

    private final String method;

    private final KeyExpressions support;

    private final MethodParameters parameters;

    private final String[] texts;

    private final Expression[] expressions;

    private final List<String> constant;

    private LockKeys(String method, KeyExpressions support, MethodParameters parameters, String[] texts,
            Expression[] expressions, List<String> constant) {
        this.method = method;
        this.support = support;
        this.parameters = parameters;
        this.texts = texts;
        this.expressions = expressions;
        this.constant = constant;
    }

    /** The same key on every call. */
    static LockKeys constant(String key) {
        return new LockKeys(null, null, null, null, null, List.of(key));
    }

    /** The values of {@code expressions}, parsed and checked already. */
    static LockKeys of(String method, KeyExpressions support, MethodParameters parameters, String[] texts,
            Expression[] expressions) {
        return new LockKeys(method, support, parameters, texts, expressions, null);
    }

    /**
     * The keys of this call.
     *
     * @throws IllegalArgumentException when an expression (or an element of its collection) is {@code null},
     *         or of a class that does not override {@code Object.toString()}
     */
    List<String> evaluate(MethodInvocation invocation) {
        if (constant != null) {
            return constant;
        }
        EvaluationContext context = support.context(parameters, invocation);
        List<String> keys = new ArrayList<>(expressions.length + 2);
        for (int i = 0; i < expressions.length; i++) {
            int expression = i;
            add(KeyExpressions.evaluate(expressions[i], context, () -> describe(expression)), i, keys);
        }
        return keys;
    }

    private void add(Object value, int expression, List<String> keys) {
        if (value instanceof Collection<?> collection) {
            int position = 0;
            for (Object element : collection) {
                keys.add(key(element, expression, position++));
            }
        }
        else if (value instanceof Object[] array) {
            for (int position = 0; position < array.length; position++) {
                keys.add(key(array[position], expression, position));
            }
        }
        else if (value != null && value.getClass().isArray()) {
            add(ObjectUtils.toObjectArray(value), expression, keys);
        }
        else {
            keys.add(key(value, expression, -1));
        }
    }

    private String describe(int expression) {
        return "@Locked key expression '" + texts[expression] + "' of " + method;
    }

    private String key(Object value, int expression, int position) {
        if (value == null) {
            throw new IllegalArgumentException(describe(expression)
                    + (position < 0 ? " is null" : " yielded null at position " + position)
                    + ": a key must not be null");
        }
        return KeyValues.key(value, "@Locked", texts[expression], method, position);
    }
}
