package dev.locks.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method only while its caller holds every key, acquired all-or-nothing in sorted order.
 *
 * <pre>{@code
 * @Locked(keys = {"'account:' + #from.id", "'account:' + #to.id"})
 * public void transfer(Account from, Account to, BigDecimal amount) { ... }
 * }</pre>
 *
 * <p>Each key is a SpEL expression over the parameters by name ({@code #from}), by position ({@code #p0},
 * {@code #a0}) and beans ({@code @beanName}); one that yields a collection or array locks each element.
 * With no keys, the method locks {@code "<fully qualified class name>.<method name>"} (overloads share it).
 * Expressions are parsed and checked once, at startup.
 *
 * <p>Every attribute is a string, empty for the {@code locks.*} default: durations as {@code "500ms"},
 * {@code "PT2S"} or {@code "${app.lock-timeout}"}; {@code retries} as {@code "0"}, {@code "5"} or
 * {@code "infinity"}. When the keys cannot be taken the method throws
 * {@link dev.locks.LockTimeoutException} (or {@link dev.locks.LockUnavailableException}) and its body never
 * runs. A method returning {@code CompletableFuture} holds its locks until the future completes.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

    /** SpEL expressions, each a key or a collection of keys; none locks the method itself. */
    String[] keys() default {};

    /** Retries after the first attempt, or {@code "infinity"}; empty for {@code locks.retries}. */
    String retries() default "";

    /** Pause between attempts, jittered; empty for {@code locks.retry-interval}. */
    String retryInterval() default "";

    /** When a held lock turns stale, or {@code "infinity"}; empty for {@code locks.lock-timeout}. */
    String lockTimeout() default "";

    /** An overall deadline for the acquire; empty for {@code locks.wait-time}. */
    String waitTime() default "";
}
