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

    private final Publishers publishers;

    /** @param tagName the {@code name} tag of the call's meters and observation */
    LockedOperation(LockKeys keys, UnaryOperator<AcquireOptions> overrides, boolean async, String tagName) {
        this(keys, overrides, async, tagName, Publishers.NONE);
    }

    /** @param publishers whether the method returns a Reactor {@code Mono} or {@code Flux}, or a Kotlin {@code Flow} */
    LockedOperation(LockKeys keys, UnaryOperator<AcquireOptions> overrides, boolean async, String tagName,
            Publishers publishers) {
        this.keys = keys;
        this.overrides = new Overrides<>(overrides);
        this.async = async;
        this.tagName = tagName;
        this.publishers = publishers;
    }

    /**
     * What a method hands back of Reactor's types. A Kotlin {@code suspend} function is one too: Spring's AOP calls
     * it as a {@code Mono} of its result (a {@code Flux} when its result is a {@code Flow}), which the proxy awaits.
     */
    enum Publishers {
        /** Neither a {@code Mono} nor a {@code Flux}. */
        NONE,
        /** A {@code Mono}, or a {@code suspend} function's. */
        MONO,
        /** A {@code Flux}, or a {@code suspend} function's whose result is a {@code Flow}. */
        FLUX,
        /** A Kotlin {@code Flow} (a method that returns one, not a {@code suspend} function). */
        FLOW
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

    /**
     * Whether the method returns a Reactor {@code Mono} or {@code Flux} or a Kotlin {@code Flow}, or is a
     * {@code suspend} function: its keys are taken on subscription (on collection, when the coroutine awaits).
     */
    boolean reactive() {
        return publishers != Publishers.NONE;
    }

    /** Whether the method returns a Reactor {@code Flux} or a Kotlin {@code Flow}: a stream of values. */
    boolean flux() {
        return publishers == Publishers.FLUX || publishers == Publishers.FLOW;
    }

    /** Whether the method returns a Kotlin {@code Flow}, adapted to and from a {@code Flux}. */
    boolean flow() {
        return publishers == Publishers.FLOW;
    }

    /** Whether the method returns a {@code CompletableFuture} (or {@code CompletionStage}). */
    boolean async() {
        return async;
    }
}
