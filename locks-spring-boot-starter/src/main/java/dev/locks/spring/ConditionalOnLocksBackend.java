package dev.locks.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/**
 * Matches when the application's backend (see {@link LocksProperties#getBackend()}) is the given one. A
 * backend's configuration carries it, so that exactly one backend's beans are defined.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnLocksBackendCondition.class)
public @interface ConditionalOnLocksBackend {

    /** The backend that must be selected. */
    LocksBackend value();
}
