package dev.locks.spring.interceptor;

import dev.locks.AcquireOptions;
import java.util.List;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInvocation;

/** One {@code @Locked} method, parsed: its keys, its options over the registry's defaults, its kind. */
public final class LockedOperation {

    private final LockKeys keys;

    private final Overrides<AcquireOptions> overrides;

    private final boolean async;

    private final String tagName;

    /** @param tagName the {@code name} tag of the call's meters and observation */
    LockedOperation(LockKeys keys, UnaryOperator<AcquireOptions> overrides, boolean async, String tagName) {
        this.keys = keys;
        this.overrides = new Overrides<>(overrides);
        this.async = async;
        this.tagName = tagName;
    }

    /** The {@code name} tag of this method's meters and observation: {@code <simple class name>.<method name>}. */
    String tagName() {
        return tagName;
    }

    /** The keys of this call. */
    List<String> keys(MethodInvocation invocation) {
        return keys.evaluate(invocation);
    }

    /** The options: the registry's defaults with the annotation's attributes applied. */
    AcquireOptions options(AcquireOptions defaults) {
        return overrides.over(defaults);
    }

    /** Whether the method returns a {@code CompletableFuture} (or {@code CompletionStage}). */
    boolean async() {
        return async;
    }
}
