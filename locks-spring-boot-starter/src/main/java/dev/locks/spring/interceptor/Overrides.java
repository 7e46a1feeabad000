package dev.locks.spring.interceptor;

import java.util.function.UnaryOperator;

/**
 * An annotation's options laid over a backend's defaults, worked out on first use and kept (again only
 * should the defaults object change), so that a call pays one volatile read.
 *
 * @param <T> the options type
 */
final class Overrides<T> {

    private final UnaryOperator<T> overrides;

    private volatile Resolved<T> resolved;

    /** @param overrides the annotation's options, or {@code null} when it gives none */
    Overrides(UnaryOperator<T> overrides) {
        this.overrides = overrides;
    }

    T over(T defaults) {
        if (overrides == null) {
            return defaults;
        }
        Resolved<T> current = resolved;
        if (current == null || current.defaults() != defaults) {
            current = new Resolved<>(defaults, overrides.apply(defaults));
            resolved = current;
        }
        return current.options();
    }

    private record Resolved<T>(T defaults, T options) {
    }
}
