package dev.locks.spring.interceptor;

import dev.locks.AcquireOptions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInvocation;

/** One {@code @Locked} method, parsed: its keys, its options over the registry's defaults, its kind. */
public final class LockedOperation {

    private final LockKeys keys;

    private final Overrides<AcquireOptions> overrides;

    private final boolean async;

    private final String tagName;

    private final Publishers publishers;

    private final boolean skips;

    private final boolean optional;

    /** @param tagName the {@code name} tag of the call's meters and observation */
    LockedOperation(LockKeys keys, UnaryOperator<AcquireOptions> overrides, boolean async, String tagName) {
        this(keys, overrides, async, tagName, Publishers.NONE, false, false);
    }

    /**
     * @param publishers whether the method returns a Reactor {@code Mono} or {@code Flux}, or a Kotlin {@code Flow}
     * @param skips whether a timeout skips the method ({@code onTimeout = "skip"}) rather than throwing
     * @param optional whether the method returns an {@code Optional}, which a skipped call returns empty
     */
    LockedOperation(LockKeys keys, UnaryOperator<AcquireOptions> overrides, boolean async, String tagName,
            Publishers publishers, boolean skips, boolean optional) {
        this.keys = keys;
        this.overrides = new Overrides<>(overrides);
        this.async = async;
        this.tagName = tagName;
        this.publishers = publishers;
        this.skips = skips;
        this.optional = optional;
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

    /**
     * Whether a call whose keys were not taken within its wait returns without running the method
     * ({@code onTimeout = "skip"}) rather than throwing the {@code LockTimeoutException}.
     */
    boolean skips() {
        return skips;
    }

    /**
     * What a skipped blocking or {@code CompletableFuture} call returns: {@code null}, an empty {@code Optional},
     * a {@code CompletableFuture} of {@code null}. (A reactive one returns an empty publisher.)
     */
    Object skipped() {
        if (async) {
            return CompletableFuture.completedFuture(null);
        }
        return optional ? Optional.empty() : null;
    }

    /** Whether the method returns a {@code CompletableFuture} (or {@code CompletionStage}). */
    boolean async() {
        return async;
    }
}
