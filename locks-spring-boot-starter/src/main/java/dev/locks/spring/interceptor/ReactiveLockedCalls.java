package dev.locks.spring.interceptor;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.internal.CurrentLease;
import dev.locks.spring.reactive.ReactiveLease;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The {@code @Locked} call of a method returning {@code Mono} or {@code Flux}: each subscription takes the keys,
 * runs the method and its publisher under them, and releases them when the publisher completes, errors or is
 * cancelled ({@code usingWhen}: exactly one of the three).
 *
 * <p>The engine's waits are blocking parks, so the acquire runs on a bounded scheduler of its own ({@link Waits},
 * threads "locks-wait-N", as many as {@link Schedulers#boundedElastic()} has), never on the subscriber's thread
 * (an event loop, often). The release goes to {@link Schedulers#boundedElastic()}: on Redis it is a round trip, and
 * were it queued behind the waits for the same key that it would end, a hot key would starve its own holder. The
 * lease is detached at once, on its acquiring thread, so that the pooled thread does not re-enter its locks for
 * the next subscription it serves. The only class of the interceptors that names Reactor: loaded for Reactor
 * return types only.
 */
final class ReactiveLockedCalls {

    private ReactiveLockedCalls() {
    }

    /** The publisher that the proxy returns in place of the method's own. */
    static Object locked(MethodInvocation invocation, LockedOperation operation, LockRegistry locks, List<String> keys,
            AcquireOptions options, CallObservations observations) {
        Scheduler scheduler = Schedulers.boundedElastic();
        MethodInvocation template = invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone()
                : invocation;
        Mono<Lease> acquire = Mono.create(sink -> new Acquisition(sink).start(
                () -> acquire(operation, locks, keys, options, observations)));
        if (operation.flux()) {
            return Flux.usingWhen(acquire, lease -> Flux.from(call(template, lease))
                    .contextWrite(ReactiveLease.context(lease)), lease -> release(lease, scheduler),
                    (lease, error) -> release(lease, scheduler), lease -> release(lease, scheduler))
                    .doOnDiscard(Lease.class, Lease::close);
        }
        return Mono.usingWhen(acquire, lease -> Mono.from(call(template, lease))
                .contextWrite(ReactiveLease.context(lease)), lease -> release(lease, scheduler),
                (lease, error) -> release(lease, scheduler), lease -> release(lease, scheduler))
                .doOnDiscard(Lease.class, Lease::close);
    }

    /** The scheduler of the waits for keys: the starter's own, so that waits never starve other work. */
    private static final class Waits {

        static final Scheduler SCHEDULER = Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
                Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, "locks-wait", 60, true);
    }

    /**
     * One subscription's acquire, on {@link Waits#SCHEDULER}. A cancellation while it waits interrupts the wait
     * (the engine then stops, holding nothing); a lease that arrives after the cancellation is closed at once, so
     * that nothing stays held for a subscriber that has gone.
     */
    private static final class Acquisition {

        private static final int WAITING = 0;

        private static final int DELIVERED = 1;

        private static final int CANCELLED = 2;

        private final MonoSink<Lease> sink;

        private final AtomicInteger state = new AtomicInteger(WAITING);

        Acquisition(MonoSink<Lease> sink) {
            this.sink = sink;
        }

        void start(Callable<Lease> acquire) {
            Disposable task;
            try {
                task = Waits.SCHEDULER.schedule(() -> run(acquire));
            }
            catch (RuntimeException ex) { // rejected: the scheduler's queue is full
                sink.error(ex);
                return;
            }
            sink.onCancel(() -> {
                if (state.compareAndSet(WAITING, CANCELLED)) {
                    task.dispose();
                }
            });
        }

        private void run(Callable<Lease> acquire) {
            Lease lease;
            try {
                lease = acquire.call();
            }
            catch (Throwable ex) {
                if (state.compareAndSet(WAITING, DELIVERED)) {
                    sink.error(ex);
                }
                Thread.interrupted(); // a cancellation's interrupt is spent
                return;
            }
            if (state.compareAndSet(WAITING, DELIVERED)) {
                sink.success(lease);
                return;
            }
            Thread.interrupted();
            lease.close();
        }
    }

    private static Lease acquire(LockedOperation operation, LockRegistry locks, List<String> keys,
            AcquireOptions options, CallObservations observations) throws Exception {
        String previous = CallNames.enter(operation.tagName());
        try {
            Lease lease = observations.observe(CallObservations.ACQUIRE, operation.tagName(), locks.backend(),
                    () -> locks.acquire(keys, options));
            lease.detach();
            return lease;
        }
        catch (Exception | Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            throw new UndeclaredThrowableException(ex);
        }
        finally {
            CallNames.restore(previous);
        }
    }

    /**
     * Runs the method for one subscription (a clone of the invocation each time, so that a resubscription runs
     * the interceptors behind this one again), with the lease as {@code Lease.current()} while it builds its
     * publisher and in the publisher's context while that runs.
     */
    @SuppressWarnings("unchecked")
    private static Publisher<Object> call(MethodInvocation template, Lease lease) {
        MethodInvocation invocation = template instanceof ProxyMethodInvocation proxied ? proxied.invocableClone()
                : template;
        Object publisher;
        try (CurrentLease.Scope scope = CurrentLease.enter(lease)) {
            publisher = invocation.proceed();
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
        return publisher == null ? Mono.empty() : (Publisher<Object>) publisher;
    }

    private static Mono<Void> release(Lease lease, Scheduler scheduler) {
        return Mono.fromRunnable(lease::close).subscribeOn(scheduler).then();
    }
}
