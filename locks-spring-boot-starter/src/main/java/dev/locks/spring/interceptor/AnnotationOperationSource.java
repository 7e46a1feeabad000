package dev.locks.spring.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * The parsed form of every method of a class that carries annotation {@code A}, built once per class.
 *
 * <p>The first time the auto-proxy creator asks whether a bean class needs a proxy ({@link #hasOperations}),
 * every annotated method of that class is parsed and checked, so that an invalid annotation stops the
 * application at startup even on a method that is never called. A call then finds its operation with one
 * map lookup ({@link #operation}); only the first call of a method through an interface also resolves the
 * class's implementation of it, once.
 *
 * @param <A> the annotation
 * @param <O> the parsed operation
 */
public abstract class AnnotationOperationSource<A extends Annotation, O> {

    private static final Log logger = LogFactory.getLog(AnnotationOperationSource.class);

    private static final Object NONE = new Object();

    private final Class<A> annotationType;

    private final Map<Class<?>, Map<Method, O>> byClass = new ConcurrentHashMap<>(64);

    private final Map<MethodClassKey, Object> byInvocation = new ConcurrentHashMap<>(256);

    protected AnnotationOperationSource(Class<A> annotationType) {
        this.annotationType = annotationType;
    }

    /**
     * Parses {@code annotation} of {@code method}.
     *
     * @throws InvalidLocksAnnotationException when it cannot work
     */
    protected abstract O parse(A annotation, Method method, Class<?> targetClass);

    /** Whether any method of {@code targetClass} carries the annotation; parses them all the first time. */
    public boolean hasOperations(Class<?> targetClass) {
        return !operations(targetClass).isEmpty();
    }

    /** The operation of the invoked method, or {@code null}. */
    public O operation(MethodInvocation invocation) {
        Object target = invocation.getThis();
        return operation(invocation.getMethod(), target == null ? null : AopUtils.getTargetClass(target));
    }

    /** The operation of {@code method} invoked on an instance of {@code targetClass}, or {@code null}. */
    @SuppressWarnings("unchecked")
    public O operation(Method method, Class<?> targetClass) {
        MethodClassKey key = new MethodClassKey(method, targetClass);
        Object operation = byInvocation.get(key);
        if (operation == null) {
            operation = resolve(method, targetClass);
            byInvocation.put(key, operation);
        }
        return operation == NONE ? null : (O) operation;
    }

    private Object resolve(Method method, Class<?> targetClass) {
        Class<?> type = targetClass == null ? method.getDeclaringClass() : targetClass;
        Method specific = AopUtils.getMostSpecificMethod(method, ClassUtils.getUserClass(type));
        O operation = operations(type).get(specific);
        return operation == null ? NONE : operation;
    }

    private Map<Method, O> operations(Class<?> targetClass) {
        Map<Method, O> operations = byClass.get(targetClass);
        if (operations == null) {
            operations = scan(ClassUtils.getUserClass(targetClass));
            byClass.put(targetClass, operations);
        }
        return operations;
    }

    private Map<Method, O> scan(Class<?> userClass) {
        if (!AnnotationUtils.isCandidateClass(userClass, annotationType)) {
            return Map.of();
        }
        Map<Method, A> annotated = MethodIntrospector.selectMethods(userClass,
                (MethodIntrospector.MetadataLookup<A>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, annotationType));
        if (annotated.isEmpty()) {
            return Map.of();
        }
        Map<Method, O> operations = new HashMap<>(annotated.size() * 2);
        annotated.forEach((method, annotation) -> {
            warnIfNotInterceptable(method, userClass);
            operations.put(method, parse(annotation, method, userClass));
        });
        return Map.copyOf(operations);
    }

    private void warnIfNotInterceptable(Method method, Class<?> userClass) {
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            logger.warn("@" + annotationType.getSimpleName() + " on " + MethodDescriptions.describe(userClass, method)
                    + " has no effect: a proxy cannot intercept a private, static or final method");
        }
    }
}
