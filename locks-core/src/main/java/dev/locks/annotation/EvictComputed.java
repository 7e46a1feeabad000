package dev.locks.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * After the method returns normally, invalidates the stored key {@code name + ":" + key} of
 * {@link FetchOrCompute} values ({@link dev.locks.ComputeCache#invalidate}: a computation of that key in flight
 * is not stored either, so a value read before the method's change never stays). A method that throws evicts
 * nothing.
 *
 * <pre>{@code
 * @EvictComputed(name = "quotes", key = "#quote.symbol")
 * public void update(Quote quote) { ... }          // after the update (and its transaction) ends
 * }</pre>
 *
 * <p>The key expression is SpEL, parsed and checked once at startup as for {@link FetchOrCompute}; on a
 * {@code @Transactional} method the eviction runs after the transaction commits (the interceptor is outside).
 * It also works as a meta-annotation, as {@link FetchOrCompute} does.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface EvictComputed {

    /** The {@link FetchOrCompute#name} of the values; required. */
    String name();

    /** SpEL expression of the key, as in {@link FetchOrCompute#key}. */
    String key();
}
