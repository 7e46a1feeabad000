package dev.locks.spring.interceptor;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.springframework.core.ReactiveAdapterRegistry;

/** What the interceptors need to know of an annotated method's return type. */
final class ReturnTypes {

    private ReturnTypes() {
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
