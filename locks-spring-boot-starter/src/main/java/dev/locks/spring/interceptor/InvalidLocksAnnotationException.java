package dev.locks.spring.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;

/**
 * An {@code @Locked} or {@code @FetchOrCompute} annotation that cannot work: a key expression that does
 * not parse or refers to an unknown parameter or bean, an option that is no valid duration, a return type
 * that the annotation cannot handle. Thrown at startup, when the annotated bean is created.
 */
public class InvalidLocksAnnotationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final Class<? extends Annotation> annotationType;

    private final Class<?> targetClass;

    private final transient Method method;

    private final String attribute;

    private final String value;

    private final String reason;

    private final String action;

    /**
     * @param attribute the attribute at fault ({@code keys}, {@code ttl}, ...), or {@code null} for the
     *        method itself
     * @param value the attribute's value at fault (the expression), or {@code null}
     * @param reason what is wrong, as a sentence
     * @param action what to do about it, as a sentence
     */
    public InvalidLocksAnnotationException(Class<? extends Annotation> annotationType, Class<?> targetClass,
            Method method, String attribute, String value, String reason, String action) {
        super("Invalid @" + annotationType.getSimpleName() + " on " + MethodDescriptions.describe(targetClass, method)
                + (attribute == null ? "" : ", " + attribute + (value == null ? "" : " '" + value + "'")) + ": "
                + reason);
        this.annotationType = annotationType;
        this.targetClass = targetClass;
        this.method = method;
        this.attribute = attribute;
        this.value = value;
        this.reason = reason;
        this.action = action;
    }

    /** {@code Locked} or {@code FetchOrCompute}. */
    public Class<? extends Annotation> annotationType() {
        return annotationType;
    }

    /** The class of the bean whose method carries the annotation. */
    public Class<?> targetClass() {
        return targetClass;
    }

    /** The annotated method. */
    public Method method() {
        return method;
    }

    /** The attribute at fault, or {@code null} when the method itself is (its return type, say). */
    public String attribute() {
        return attribute;
    }

    /** The value at fault (an expression, a duration), or {@code null}. */
    public String value() {
        return value;
    }

    /** What is wrong. */
    public String reason() {
        return reason;
    }

    /** What to do about it. */
    public String action() {
        return action;
    }
}
