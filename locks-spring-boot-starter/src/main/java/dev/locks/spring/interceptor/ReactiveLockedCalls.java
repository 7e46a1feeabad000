package dev.locks.spring.interceptor;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.local.LocalLockRegistry;
import dev.locks.spring.reactive.ReactiveLease;
import java.util.List;
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
 * <p>The engine's waits are blocking parks, so a wait runs on the starter's wait scheduler ({@link ReactiveWaits}),
 * never on the subscriber's thread (an event loop, often); a cancellation interrupts it, and a lease that arrives
 * after one is closed at once. The release goes to {@link Schedulers#boundedElastic()}: on Redis it is a round trip,
 * and were it queued behind the waits for the same key that it would end, a hot key would starve its own holder.
 * The in-memory registry ({@link LocalLockRegistry}) neither blocks to take free keys nor to release them: there a
 * subscription first tries its keys on its own thread ({@link LocalLockRegistry#acquireDetachedIfFree}) and goes to the
 * wait scheduler only when one is taken, and the release runs where the publisher ends. That spares two thread
 * hand-offs per uncontended subscription (tens of microseconds against a blocking call's hundreds of nanoseconds,
 * docs/benchmarks.md). The lease is detached at once, on its acquiring thread, so that the pooled thread does not
 * re-enter its locks for the next subscription it serves. Like every class of the interceptors that names Reactor,
 * loaded for Reactor return types only.
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
        ReactiveWaits.Call<Lease> blocking = () -> acquire(operation, locks, keys, options, observations);
        Scheduler scheduler;
        Mono<Lease> acquire;
        if (locks instanceof LocalLockRegistry local) {
            scheduler = null; // released where the publisher ends: nothing of it blocks
            acquire = Mono.defer(() -> {
                Lease lease;
                try {
                    lease = takeIfFree(operation, local, keys, options, observations);
                }
                catch (Throwable ex) {
                    return Mono.error(ex);
                }
                return lease != null ? Mono.just(lease) : ReactiveWaits.off(blocking, true, Lease::close);
            });
        }
        else {
            scheduler = Schedulers.boundedElastic();
            acquire = ReactiveWaits.off(blocking, true, Lease::close);
        }
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

    private static Flux<Object> lockedFlux(Mono<Lease> acquire, MethodInvocation template,
            Function<Object, Publisher<?>> toPublisher, Scheduler scheduler) {
        return Flux.usingWhen(acquire, lease -> Flux.from(call(template, lease, toPublisher))
                .contextWrite(ReactiveLease.context(lease)), lease -> release(lease, scheduler),
                (lease, error) -> release(lease, scheduler), lease -> release(lease, scheduler))
                .doOnDiscard(Lease.class, Lease::close);
    }

    /** The lease, detached from the waiting thread; {@code null} when the call skips (an empty publisher). */
    private static Lease acquire(LockedOperation operation, LockRegistry locks, List<String> keys,
            AcquireOptions options, CallObservations observations) throws Throwable {
        Lease lease = LockedInterceptor.acquire(operation, locks, keys, options, observations);
        if (lease != null) {
            lease.detach();
        }
        return lease;
    }

    /**
     * The keys taken on the subscriber's thread if all are free (detached: a key the thread holds counts as held,
     * as for a subscription served by another thread), and observed as an acquire that did
     * not wait; {@code null} when one is taken (the subscription then waits off its thread). Neither waits nor
     * blocks: the in-memory registry's attempt is a few map operations.
     */
    private static Lease takeIfFree(LockedOperation operation, LocalLockRegistry local, List<String> keys,
            AcquireOptions options, CallObservations observations) throws Throwable {
        String previous = CallNames.enter(operation.tagName());
        try {
            Lease lease = local.acquireDetachedIfFree(keys, options).orElse(null);
            if (lease == null) {
                return null;
            }
            try {
                return observations.observe(CallObservations.ACQUIRE, operation.tagName(), local.backend(),
                        () -> lease);
            }
            catch (Throwable ex) {
                lease.close();
                throw ex;
            }
        }
        finally {
            CallNames.restore(previous);
        }
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
