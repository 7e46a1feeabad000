package dev.locks.spring.interceptor;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.springframework.core.ReactiveAdapterRegistry;

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
