package dev.locks.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Returns the stored value of the key on a hit; on a miss, exactly one caller runs the method while every
 * other caller for that key waits for its result (or its exception, of the same type).
 *
 * <pre>{@code
 * @FetchOrCompute(name = "quotes", key = "#symbol", ttl = "30s")   // stored key "quotes:<symbol>"
 * public Quote quote(String symbol) { ... }
 * }</pre>
 *
 * <p>{@link #name} is the namespace of the method's values, as a cache name is for {@code @Cacheable}: the
 * stored key (the one {@link dev.locks.ComputeCache}, {@link dev.locks.Computation#key()} and the actuator
 * endpoint show) is {@code name + ":" + key}. Without a name it is the method's
 * {@code "<fully qualified class name>.<method name>"}, so that two methods never read each other's values by
 * accident; methods that mean to share values give the same name. {@link EvictComputed} removes a value.
 *
 * <p>Every attribute is a string, empty for the {@code locks.*} default; durations as {@code "500ms"},
 * {@code "PT2S"} or {@code "${app.quote-ttl}"}. The key expression is parsed and checked once, at startup.
 *
 * <p>It also works as a meta-annotation: an annotation of the application that carries it (with Spring's
 * {@code @AliasFor} attributes, if any) is found, checked and applied as {@code @FetchOrCompute} itself.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FetchOrCompute {

    /**
     * The namespace of the values, before {@code ":"} in the stored key; empty for
     * {@code "<fully qualified class name>.<method name>"}.
     */
    String name() default "";

    /** SpEL expression of the key, after {@code name + ":"} in the stored key. */
    String key();

    /** How long the value is stored, {@code "0"} for no expiry; empty for {@code locks.compute.default-ttl}. */
    String ttl() default "";

    /** When a stalled computer is replaced; empty for {@code locks.compute.timeout}. */
    String computeTimeout() default "";

    /** How long a waiter waits before giving up alone; empty to wait as long as the computation takes. */
    String waitTime() default "";

    /**
     * Refresh-ahead: a hit on a value stored longer ago than this returns it at once and starts one background
     * recomputation of the key; shorter than a non-zero {@link #ttl}. Empty for
     * {@code locks.compute.refresh-after} (unset: no refresh-ahead).
     */
    String refreshAfter() default "";

    /**
     * Stale-if-error: how long after its TTL a value stays readable as stale, served instead of a failed
     * computation's exception. Empty for {@code locks.compute.stale-if-error} (unset: none).
     */
    String staleIfError() default "";
}
