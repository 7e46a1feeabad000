package dev.locks.sample.jobs;

import dev.locks.annotation.Locked;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * A scheduled job that runs on one instance at a time: {@code @Locked} with one attempt ({@code waitTime = "0"}) and
 * {@code onTimeout = "skip"}, so that on every other instance the run is skipped quietly (no exception reaches the
 * scheduler, nothing is logged above {@code DEBUG}). The application's own annotation, as ShedLock's
 * {@code @SchedulerLock} is: the starter finds {@code @Locked} on it and checks it at startup like the plain one.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Locked(waitTime = "0", onTimeout = "skip")
public @interface SingleNode {

    /** The job's lock key (a SpEL expression, as {@code @Locked}'s keys): its name. */
    @AliasFor(annotation = Locked.class, attribute = "keys")
    String value();

    /** The longest a run may hold the job (ShedLock's {@code lockAtMostFor}). */
    @AliasFor(annotation = Locked.class, attribute = "lockTimeout")
    String lockTimeout() default "10m";

    /** The shortest time between two runs, whatever the instances' clocks (ShedLock's {@code lockAtLeastFor}). */
    @AliasFor(annotation = Locked.class, attribute = "holdAtLeast")
    String holdAtLeast() default "";
}
