package dev.locks.docs.locks;

import dev.locks.annotation.Locked;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

// tag::single-node[]
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Locked(waitTime = "0", onTimeout = "skip")
public @interface SingleNode {

    @AliasFor(annotation = Locked.class, attribute = "keys")
    String value();                                    // the job's key, a SpEL expression: "'job:report'"

    @AliasFor(annotation = Locked.class, attribute = "lockTimeout")
    String lockTimeout() default "10m";

    @AliasFor(annotation = Locked.class, attribute = "holdAtLeast")
    String holdAtLeast() default "";
}
// end::single-node[]
