package dev.locks.spring.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;

/**
 * Resolves the string attributes of one annotated method once, at startup: {@code ${...}} placeholders
 * against the environment, then the value's own format. A failure names the method and the attribute.
 */
final class AttributeValues {

    static final String OPTION_ACTION = "Fix the attribute: durations as '500ms', '30s' or 'PT2S'; retries as a whole"
            + " number >= 0 or 'infinity'; lockTimeout as a positive duration or 'infinity'. A ${...} placeholder must"
            + " resolve to one of these.";

    static final String EXPRESSION_ACTION = "Fix the expression: refer to parameters by name (#name, which needs the"
            + " compiler flag '-parameters') or by position (#p0, #a0), to beans as @beanName, and to the call as"
            + " #root (#root.methodName, #root.args).";

    private final Environment environment;

    private final Class<? extends Annotation> annotationType;

    private final Class<?> targetClass;

    private final Method method;

    AttributeValues(Environment environment, Class<? extends Annotation> annotationType, Class<?> targetClass,
            Method method) {
        this.environment = environment;
        this.annotationType = annotationType;
        this.targetClass = targetClass;
        this.method = method;
    }

    /**
     * The option that {@code value} states, as a change to options of type {@code T}; {@code null} when the
     * value is empty (the default applies). The change is tried on {@code probe} at once, so that an invalid
     * value fails here, naming the attribute, rather than on the first call.
     */
    <T> UnaryOperator<T> option(String attribute, String value, T probe, Function<String, UnaryOperator<T>> parse) {
        if (value.isEmpty()) {
            return null;
        }
        try {
            UnaryOperator<T> option = parse.apply(environment.resolveRequiredPlaceholders(value).trim());
            option.apply(probe);
            return option;
        }
        catch (IllegalArgumentException ex) {
            throw invalid(attribute, value, ex.getMessage(), OPTION_ACTION);
        }
    }

    /**
     * The key expression {@code text} of {@code attribute}, parsed and checked against the method's
     * parameters and the bean factory, so that a bad expression fails here, naming the attribute.
     */
    Expression expression(String attribute, String text, KeyExpressions expressions, MethodParameters parameters) {
        try {
            return expressions.parse(text, parameters);
        }
        catch (IllegalArgumentException ex) {
            throw invalid(attribute, text, ex.getMessage(), EXPRESSION_ACTION);
        }
    }

    /** The options applied one after the other; {@code null} when there are none. */
    @SafeVarargs
    static <T> UnaryOperator<T> all(UnaryOperator<T>... options) {
        List<UnaryOperator<T>> given = Arrays.stream(options).filter(Objects::nonNull).toList();
        if (given.isEmpty()) {
            return null;
        }
        return defaults -> {
            T result = defaults;
            for (UnaryOperator<T> option : given) {
                result = option.apply(result);
            }
            return result;
        };
    }

    InvalidLocksAnnotationException invalid(String attribute, String value, String reason, String action) {
        return new InvalidLocksAnnotationException(annotationType, targetClass, method, attribute, value, reason, action);
    }
}
