package dev.locks.spring.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/** What the interceptors need to know of an annotated method's return type. */
final class ReturnTypes {

    private ReturnTypes() {
    }

    /** The type of the last parameter the Kotlin compiler gives a {@code suspend} function. */
    private static final String CONTINUATION = "kotlin.coroutines.Continuation";

    /**
     * Whether {@code method} is a Kotlin {@code suspend} function, known by its JVM shape (a last parameter
     * {@code kotlin.coroutines.Continuation}) so that no Kotlin is needed at runtime. Such a method returns at
     * its first suspension point and finishes later, on a coroutine: an interceptor around it would release its
     * lock, or store its value, before the body has finished.
     */
    static boolean isSuspending(Method method) {
        Class<?>[] parameters = method.getParameterTypes();
        return parameters.length > 0 && CONTINUATION.equals(parameters[parameters.length - 1].getName());
    }

    /**
     * What Spring's AOP needs to run a {@code suspend} function as a {@code Mono} (Spring Framework 6.1 and later:
     * {@code AopUtils.invokeJoinpointUsingReflection} and the proxies): kotlinx-coroutines-reactor, the class
     * {@code AopUtils} itself looks for, and kotlin-reflect, with which {@code CoroutinesUtils} calls the function.
     * Without them, Spring calls a suspend function as a plain method, which returns at its first suspension.
     *
     * @return the coordinates of the first one missing, or {@code null} when both are there
     */
    static String missingForSuspending() {
        if (!hasCoroutinesReactor()) {
            return COROUTINES_REACTOR;
        }
        return KotlinDetector.isKotlinReflectPresent() ? null : "org.jetbrains.kotlin:kotlin-reflect";
    }

    static final String COROUTINES_REACTOR = "org.jetbrains.kotlinx:kotlinx-coroutines-reactor";

    /** Whether kotlinx-coroutines-reactor is on the classpath, by the class Spring's {@code AopUtils} looks for. */
    static boolean hasCoroutinesReactor() {
        return ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", ReturnTypes.class.getClassLoader());
    }

    /**
     * The declared (Kotlin) result type of a {@code suspend} function, whose JVM result is {@code Object}: the type
     * argument of its {@code Continuation<? super R>} parameter ({@code Object} for {@code Nothing}). Read from the
     * generic signature, so that it needs no kotlin-reflect.
     */
    static Class<?> suspendingResult(Method method) {
        Type[] parameters = method.getGenericParameterTypes();
        if (parameters.length == 0 || !(parameters[parameters.length - 1] instanceof ParameterizedType continuation)) {
            return Object.class;
        }
        Type result = continuation.getActualTypeArguments()[0];
        if (result instanceof WildcardType wildcard) {
            result = wildcard.getLowerBounds().length > 0 ? wildcard.getLowerBounds()[0] : Object.class;
        }
        return ResolvableType.forType(result).toClass();
    }

    /** Kotlin's {@code Flow}, by name. */
    static final String FLOW = "kotlinx.coroutines.flow.Flow";

    /** Whether {@code type} is Kotlin's {@code Flow} or implements it, known by name so that Kotlin stays optional. */
    static boolean isFlow(Class<?> type) {
        if (type.getName().equals(FLOW)) {
            return true;
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> implemented : c.getInterfaces()) {
                if (isFlow(implemented)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static final String MONO = "reactor.core.publisher.Mono";

    private static final String FLUX = "reactor.core.publisher.Flux";

    /** Whether {@code type} is Reactor's {@code Mono} or a subclass, known by name so that Reactor stays optional. */
    static boolean isMono(Class<?> type) {
        return isOrExtends(type, MONO);
    }

    /** Whether {@code type} is Reactor's {@code Flux} or a subclass, known by name as {@link #isMono} does. */
    static boolean isFlux(Class<?> type) {
        return isOrExtends(type, FLUX);
    }

    private static boolean isOrExtends(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a method of this return type hands back its result later: a future, a completion stage, or a
     * reactive type Spring knows ({@code Mono}, {@code Flux}, ...).
     */
    static boolean isDeferred(Class<?> type) {
        return CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)
                || ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
    }
}
