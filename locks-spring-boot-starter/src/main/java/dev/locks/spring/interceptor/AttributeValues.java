package dev.locks.spring.interceptor;

import dev.locks.spring.AcquireOptionValues;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.core.env.Environment;

/**
 * Resolves the string attributes of one annotated method once, at startup: {@code ${...}} placeholders
 * against the environment, then the value's own format. A failure names the method and the attribute.
 */
final class AttributeValues {

    static final String OPTION_ACTION = "Fix the attribute: durations as '500ms', '30s' or 'PT2S'; retries as a whole"
            + " number >= 0 or 'infinity'; lockTimeout as a positive duration or 'infinity'. A ${...} placeholder must"
            + " resolve to one of these.";

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

    /** {@code value} resolved and converted, or {@code null} when it is empty (the default applies). */
    <T> T resolve(String attribute, String value, Function<String, T> convert) {
        if (value.isEmpty()) {
            return null;
        }
        try {
            return convert.apply(environment.resolveRequiredPlaceholders(value).trim());
        }
        catch (IllegalArgumentException ex) {
            throw invalid(attribute, value, ex.getMessage(), OPTION_ACTION);
        }
    }

    /** The duration {@code value} states, or {@code null} when it is empty. */
    Duration duration(String attribute, String value) {
        return resolve(attribute, value, text -> AcquireOptionValues.duration(attribute, text));
    }

    InvalidLocksAnnotationException invalid(String attribute, String value, String reason, String action) {
        return new InvalidLocksAnnotationException(annotationType, targetClass, method, attribute, value, reason, action);
    }
}
