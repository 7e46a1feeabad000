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
 * @FetchOrCompute(key = "'quote:' + #symbol", ttl = "30s")
 * public Quote quote(String symbol) { ... }
 * }</pre>
 *
 * <p>Every attribute is a string, empty for the {@code locks.*} default; durations as {@code "500ms"},
 * {@code "PT2S"} or {@code "${app.quote-ttl}"}. The key expression is parsed and checked once, at startup.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FetchOrCompute {

    /** SpEL expression of the key. */
    String key();

    /** How long the value is stored, {@code "0"} for no expiry; empty for {@code locks.compute.default-ttl}. */
    String ttl() default "";

    /** When a stalled computer is replaced; empty for {@code locks.compute.timeout}. */
    String computeTimeout() default "";

    /** How long a waiter waits before giving up alone; empty to wait as long as the computation takes. */
    String waitTime() default "";
}
