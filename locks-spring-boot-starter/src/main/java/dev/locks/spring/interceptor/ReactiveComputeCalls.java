package dev.locks.spring.interceptor;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * The {@code @FetchOrCompute} call of a method returning {@code Mono}: each subscription fetches or computes the
 * key's value with {@link ComputeCache#fetchOrCompute}, on the starter's wait scheduler ({@link ReactiveWaits}),
 * never on the subscriber's thread. On a miss one subscriber, here or on another node, runs the method and waits
 * for its {@code Mono} there, blocking only that pooled thread; every other subscriber waits for the same value or
 * exception as the blocking form's callers do (SPEC 4: TTL, timeouts, promotion and failures alike). An empty
 * {@code Mono} stores nothing, as a {@code null} result. A subscriber that cancels leaves the computation running
 * for the others: it gets nothing, and nothing is interrupted. A Kotlin {@code suspend} function takes the same path:
 * Spring's AOP runs it as a {@code Mono} of its result, and the proxy awaits the {@code Mono} returned here.
 */
final class ReactiveComputeCalls {

    private ReactiveComputeCalls() {
    }

    /** The {@code Mono} that the proxy returns in place of the method's own. */
    static Object fetchOrCompute(MethodInvocation invocation, FetchOrComputeOperation operation, ComputeCache values,
            String key, ComputeOptions options, CallObservations observations) {
        MethodInvocation template = ReactiveLockedCalls.cloned(invocation);
        return ReactiveWaits.off(() -> {
            String previous = CallNames.enter(operation.tagName());
            try {
                return operation.toResult(observations.observe(CallObservations.COMPUTE, operation.tagName(),
                        values.backend(), () -> values.fetchOrCompute(key, options,
                                () -> operation.toStored(compute(template, previous)))));
            }
            finally {
                CallNames.restore(previous);
            }
        }, false, value -> {
        });
    }

    /** Runs the method under its caller's name and waits for its {@code Mono}, on this (wait scheduler) thread. */
    private static Object compute(MethodInvocation template, String callerName) {
        String name = CallNames.enter(callerName);
        try {
            Object publisher = ReactiveLockedCalls.cloned(template).proceed();
            return publisher == null ? null : Mono.from((Publisher<?>) publisher).block();
        }
        catch (Throwable ex) {
            throw Throwables.<RuntimeException>sneaky(Exceptions.unwrap(ex));
        }
        finally {
            CallNames.restore(name);
        }
    }
}
