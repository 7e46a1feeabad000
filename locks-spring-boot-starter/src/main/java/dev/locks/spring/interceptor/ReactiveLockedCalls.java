package dev.locks.spring.interceptor;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LockRegistry;
import dev.locks.spring.reactive.ReactiveLease;
import dev.locks.support.NonBlockingRelease;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The {@code @Locked} call of a method returning {@code Mono} or {@code Flux}: each subscription takes the keys,
 * runs the method and its publisher under them, and releases them when the publisher completes, errors or is
 * cancelled ({@code usingWhen}: exactly one of the three). A call that skips ({@code onTimeout = "skip"}) takes
 * nothing and runs nothing: the publisher completes empty.
 *
 * <p>The keys are taken with {@link LockRegistry#acquireAsync}, on every backend: a subscription that waits holds no
 * thread, it is a callback in the registry's wait queues, woken by the same releases and notifications as a blocking
 * acquire; cancelling the subscription cancels the wait, and a lease that arrives after the cancellation is closed
 * at once (by the registry, or here when it was already emitted: {@code doOnDiscard}). In memory the first attempt is
 * made on the subscriber's thread (a few map operations), so an uncontended subscription hands off to no thread;
 * otherwise the lease arrives on one of the registry's own threads, where the method's publisher is then subscribed
 * (never on a Redis or JDBC client's thread). The release goes to {@link Schedulers#boundedElastic()} on a remote
 * backend, where it is a round trip; in memory, or on any registry that is a {@link NonBlockingRelease}, it runs
 * where the publisher ends, since nothing of it blocks. Like
 * every class of the interceptors that names Reactor, loaded for Reactor return types only.
 *
 * <p>Kotlin needs nothing of its own here. Spring's AOP runs a {@code suspend} function as a {@code Mono} of its
 * result (a {@code Flux} when that is a {@code Flow}): {@code proceed()} returns it, and the proxy awaits what this
 * interceptor returns in its place, so the coroutine suspends while the keys are taken and the function's body runs
 * under them until it returns; cancelling the coroutine cancels the subscription. A {@code Flow} is adapted to a
 * {@code Flux} and back with Spring's {@link ReactiveAdapterRegistry} (kotlinx-coroutines-reactor), which carries the
 * Reactor context, and with it {@link ReactiveLease}, into the coroutine context ({@code ReactorContext}).
 */
final class ReactiveLockedCalls {

    private ReactiveLockedCalls() {
    }

    /** The publisher that the proxy returns in place of the method's own. */
    static Object locked(MethodInvocation invocation, LockedOperation operation, LockRegistry locks, List<String> keys,
            AcquireOptions options, CallObservations observations) {
        MethodInvocation template = cloned(invocation);
        Scheduler scheduler = releaseScheduler(locks);
        Mono<Lease> acquire = Mono.defer(() -> acquire(operation, locks, keys, options, observations));
        if (operation.flow()) {
            ReactiveAdapter flows = ReactiveAdapterRegistry.getSharedInstance()
                    .getAdapter(invocation.getMethod().getReturnType());
            return flows.fromPublisher(lockedFlux(acquire, template, flows::toPublisher, scheduler));
        }
        if (operation.flux()) {
            return lockedFlux(acquire, template, ReactiveLockedCalls::publisher, scheduler);
        }
        return Mono.usingWhen(acquire, lease -> Mono.from(call(template, lease, ReactiveLockedCalls::publisher))
                .contextWrite(ReactiveLease.context(lease)), lease -> release(lease, scheduler),
                (lease, error) -> release(lease, scheduler), lease -> release(lease, scheduler))
                .doOnDiscard(Lease.class, Lease::close);
    }

    /**
     * Where a lease of {@code locks} is released: where the publisher ends ({@code null}) when its release does not
     * block, as in memory, else on the bounded-elastic scheduler, off a thread that must not block.
     */
    static Scheduler releaseScheduler(LockRegistry locks) {
        return locks instanceof NonBlockingRelease ? null : Schedulers.boundedElastic();
    }

    private static Flux<Object> lockedFlux(Mono<Lease> acquire, MethodInvocation template,
            Function<Object, Publisher<?>> toPublisher, Scheduler scheduler) {
        return Flux.usingWhen(acquire, lease -> Flux.from(call(template, lease, toPublisher))
                .contextWrite(ReactiveLease.context(lease)), lease -> release(lease, scheduler),
                (lease, error) -> release(lease, scheduler), lease -> release(lease, scheduler))
                .doOnDiscard(Lease.class, Lease::close);
    }

    /**
     * One subscription's asynchronous acquire, under the call's name (for the meters of its events, which the
     * registry reports in that name whatever thread they arrive on) and observed until the lease arrives, the
     * acquire fails or the subscription is cancelled, which cancels the wait.
     */
    private static Mono<Lease> acquire(LockedOperation operation, LockRegistry locks, List<String> keys,
            AcquireOptions options, CallObservations observations) {
        CallObservations.Stop observed = observations.start(CallObservations.ACQUIRE, operation.tagName(),
                locks.backend());
        CompletableFuture<Lease> waiting;
        String previous = CallNames.enter(operation.tagName());
        boolean skips = operation.skips();
        if (skips) {
            CallNames.skipping(true); // captured with the name for the registry's events on its own threads
        }
        try {
            waiting = locks.acquireAsync(keys, options);
        }
        catch (RuntimeException ex) { // an application's own registry may throw rather than fail the future
            observed.tag("result", "error");
            observed.stop(ex);
            return Mono.error(ex);
        }
        finally {
            if (skips) {
                CallNames.skipping(false);
            }
            CallNames.restore(previous);
        }
        Mono<Lease> lease = Mono.fromFuture(waiting, false).doOnSuccess((taken) -> {
            observed.tag("result", "acquired");
            observed.stop(null);
        }).doOnError((error) -> {
            if (skips && error instanceof LockTimeoutException) {
                observed.tag("result", "skipped"); // no error: the call skips as it was told to
                observed.stop(null);
            }
            else {
                observed.tag("result", error instanceof LockTimeoutException ? "timeout" : "error");
                observed.stop(error);
            }
        }).doOnCancel(() -> observed.stop(null));
        if (!skips) {
            return lease;
        }
        return lease.onErrorResume(LockTimeoutException.class, (timeout) -> {
            LockedInterceptor.skipped(operation, timeout);
            return Mono.empty();
        });
    }

    /**
     * Runs the method for one subscription (a clone of the invocation each time, so that a resubscription runs
     * the interceptors behind this one again), with the lease as {@code Lease.current()} while it builds its
     * publisher and in the publisher's context while that runs; {@code toPublisher} turns the method's result into
     * the publisher (the result itself, or a {@code Flow} adapted).
     */
    @SuppressWarnings("unchecked")
    private static Publisher<Object> call(MethodInvocation template, Lease lease,
            Function<Object, Publisher<?>> toPublisher) {
        MethodInvocation invocation = cloned(template);
        Object result;
        try (Lease.CurrentScope scope = Lease.makeCurrent(lease)) {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
        return result == null ? Mono.empty() : (Publisher<Object>) toPublisher.apply(result);
    }

    private static Publisher<?> publisher(Object result) {
        return (Publisher<?>) result;
    }

    /**
     * A copy of the invocation that proceeds from this interceptor on, for each subscription: a resubscription
     * then runs the interceptors behind this one again, which proceeding twice with one invocation would skip.
     */
    static MethodInvocation cloned(MethodInvocation invocation) {
        return invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
    }

    /** The release: on {@code scheduler}, or where the publisher ends when it is {@code null}. */
    private static Mono<Void> release(Lease lease, Scheduler scheduler) {
        Mono<Void> close = Mono.fromRunnable(lease::close);
        return scheduler == null ? close : close.subscribeOn(scheduler).then();
    }
}
