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
 * runs; with {@code onTimeout = "skip"} a timeout returns without running the body instead (see
 * {@link #onTimeout}). A method returning {@code CompletableFuture} holds its locks until the future completes.
 *
 * <p>A scheduled job that runs on one node at a time:
 * <pre>{@code
 * @Scheduled(cron = "0 0 * * * *")
 * @Locked(keys = "'report'", waitTime = "0", onTimeout = "skip", lockTimeout = "10m", holdAtLeast = "1m")
 * public void publishReport() { ... }
 * }</pre>
 *
 * <p>{@code @Locked} also works as a meta-annotation: an annotation of the application that carries it (with
 * Spring's {@code @AliasFor} attributes, if any) is found, checked at startup and applied as {@code @Locked}
 * itself, as Spring's {@code @Cacheable} allows:
 * <pre>{@code
 * @Target(ElementType.METHOD)
 * @Retention(RetentionPolicy.RUNTIME)
 * @Locked(waitTime = "0", onTimeout = "skip", holdAtLeast = "1s")
 * public @interface SingleNode {
 *     @AliasFor(annotation = Locked.class, attribute = "keys")
 *     String[] value() default {};
 * }
 * }</pre>
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
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

    /**
     * How long the keys stay locked at least, counted from when they were taken: a call that ends earlier leaves
     * them locked for everyone until then (ShedLock's {@code lockAtLeastFor}), so that a scheduled job is not run
     * again by a node whose clock is a little behind. No longer than the lock timeout; empty for
     * {@code locks.hold-at-least}.
     */
    String holdAtLeast() default "";

    /**
     * What a call does when its keys cannot be taken within its wait: {@code "throw"} a
     * {@link dev.locks.LockTimeoutException}, or {@code "skip"} the body and return {@code null} (an empty
     * {@code Optional}, {@code Mono} or {@code Flux}, a {@code CompletableFuture} of {@code null}), counted as
     * {@code locks.acquire{result=skipped}} and logged at {@code DEBUG} only. A backend outage
     * ({@link dev.locks.LockUnavailableException}) always throws. A method with a primitive return type cannot
     * skip. Empty for {@code locks.on-timeout}.
     */
    String onTimeout() default "";

    /**
     * How the keys are taken: {@code "exclusive"} (the default) or {@code "shared"} (a read lock: any number of
     * shared holders at once, no exclusive one meanwhile; see {@link dev.locks.AcquireOptions#shared()}). Not
     * combinable with {@link #permits} above 1. Empty means {@code "exclusive"}.
     */
    String mode() default "";

    /**
     * How many calls may hold each key at once, a whole number {@code >= 1} (a per-tenant concurrency limit, say;
     * see {@link dev.locks.AcquireOptions#withPermits(int)}), e.g. {@code "5"} or {@code "${app.tenant-limit}"}.
     * Empty means {@code 1}, an exclusive lock.
     */
    String permits() default "";
}
