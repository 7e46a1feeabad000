package dev.locks.spring.interceptor;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.LocksObserver;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.support.AsyncComputeCache;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.reactivestreams.Publisher;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The {@code @FetchOrCompute} call of a method returning {@code Mono}: each subscription fetches or computes the
 * key's value with the cache's protocol form ({@link ComputeCache#begin(String, ComputeOptions, String)}, then
 * {@link ComputeCache#complete} or {@link ComputeCache#fail}), so that a computation holds no thread while it runs.
 *
 * <ul>
 *   <li>The lookup, and the wait for another caller's computation, go through the cache's
 *       {@link AsyncComputeCache#beginAsync}: a waiter holds no thread (it is a callback in the key's flight), the
 *       lookup and the calls to a store run on the cache's own threads, and in memory a hit returns on the
 *       subscriber's thread. A waiter is bounded by its wait time and by the computer's compute timeout, after which
 *       it is promoted and computes in its turn. A subscriber that cancels while it waits stops waiting; the
 *       computation goes on for the others, and a turn given at that moment goes to the next waiter. Only a cache that
 *       is not an {@code AsyncComputeCache} (an application's own) is called on the starter's wait scheduler
 *       ({@link ReactiveWaits}). A turn to compute that arrives just as its subscriber cancels (too late for the
 *       cancellation to stop it) is computed all the same, as below.</li>
 *   <li>The computer subscribes to the method's {@code Mono} and settles the ticket from its signal: a value is
 *       stored and handed to the waiters, an empty {@code Mono} stores nothing (a {@code null} result), an error
 *       fails the waiters too. The ticket's calls, round trips on a distributed backend, go to
 *       {@link Schedulers#boundedElastic()}, not behind the waits on the wait scheduler that they end.</li>
 *   <li>The compute timeout is a Reactor timeout: a {@code Mono} that has not signalled by then is cancelled, its
 *       caller gets a {@link ComputeTimeoutException}, and the ticket is left to the cache's own timing (the oldest
 *       waiter, already promoted, computes; with none, the miss ends and the next caller computes anew). So a
 *       computation that never completes (a {@code WebClient} without a response timeout) holds neither a thread
 *       nor its key past its compute timeout.</li>
 *   <li>The computation does not belong to the subscriber that started it: a computer's subscriber that cancels
 *       (its client went away) leaves it running, for the callers waiting for it and for the store, until it
 *       signals or its compute timeout ends it. Nobody else can tell whether a waiter on another node depends on
 *       it, and what it costs is bounded by the compute timeout.</li>
 * </ul>
 *
 * <p>A Kotlin {@code suspend} function takes the same path: Spring's AOP runs it as a {@code Mono} of its result,
 * and the proxy awaits the {@code Mono} returned here; cancelling that {@code Mono} at the compute timeout cancels
 * the coroutine.
 */
final class ReactiveComputeCalls {

    private static final Log logger = LogFactory.getLog(ReactiveComputeCalls.class);

    private ReactiveComputeCalls() {
    }

    /** The {@code Mono} that the proxy returns in place of the method's own. */
    static Object fetchOrCompute(MethodInvocation invocation, FetchOrComputeOperation operation, ComputeCache values,
            String key, ComputeOptions options, CallObservations observations) {
        MethodInvocation template = ReactiveLockedCalls.cloned(invocation);
        String name = operation.tagName();
        if (options.refreshAfter().isPresent() || options.staleIfError().isPresent()) {
            return fresh(template, operation, values, key, options, observations);
        }
        return Mono.defer(() -> {
            CallObservations.Stop observed = observations.start(CallObservations.COMPUTE, name, values.backend());
            return begun(template, operation, values, key, options).doOnNext(outcome -> observed.tag("outcome", outcomeTag(outcome))).flatMap(outcome -> outcome instanceof ComputeOutcome.Compute turn
                    ? compute(template, operation, values, turn.ticket(), options) : received(outcome))
                    .flatMap(stored -> Mono.justOrEmpty(operation.toResult(stored.orElse(null))))
                    .doOnSuccess(result -> observed.stop(null)).doOnError(observed::stop)
                    .doOnCancel(() -> observed.stop(null));
        });
    }

    /**
     * A call with refresh-ahead or stale-if-error (section 11): the cache's own call, which serves a due value at once
     * while it refreshes it in the background and a stale value instead of a failure. Its computation (now, or later
     * as a refresh on the cache's refresh pool) subscribes to the method's {@code Mono}, within the compute timeout.
     * Through {@link AsyncComputeCache#fetchOrComputeAsync} nothing of it holds a thread while it waits (a
     * refresh waits on the cache's refresh threads); a cache that is not one is called on
     * {@link Schedulers#boundedElastic()}.
     */
    private static Mono<Object> fresh(MethodInvocation template, FetchOrComputeOperation operation, ComputeCache values,
            String key, ComputeOptions options, CallObservations observations) {
        String name = operation.tagName();
        Duration timeout = options.computeTimeout();
        return Mono.defer(() -> {
            CallObservations.Stop observed = observations.start(CallObservations.COMPUTE, name, values.backend());
            Mono<Optional<Object>> stored = values instanceof AsyncComputeCache async
                    ? Mono.fromFuture(() -> named(name, () -> async.fetchOrComputeAsync(key, options,
                            () -> publisher(template).timeout(timeout).map(operation::toStored).toFuture())))
                            .map(Optional::ofNullable).defaultIfEmpty(Optional.empty())
                    : Mono.fromCallable(() -> Optional.ofNullable(named(name, () -> values.fetchOrCompute(key, options,
                            () -> awaited(template, operation, timeout))))).subscribeOn(Schedulers.boundedElastic());
            return stored.flatMap(value -> Mono.justOrEmpty(operation.toResult(value.orElse(null))))
                    .doOnSuccess(result -> observed.stop(null)).doOnError(observed::stop)
                    .doOnCancel(() -> observed.stop(null));
        });
    }

    /** The stored form of the method's {@code Mono}'s value, waited for; its error thrown as it is. */
    private static Object awaited(MethodInvocation template, FetchOrComputeOperation operation, Duration timeout) {
        try {
            return publisher(template).timeout(timeout).map(operation::toStored).block();
        }
        catch (RuntimeException ex) {
            throw ReactiveComputeCalls.<RuntimeException>thrown(Exceptions.unwrap(ex));
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E thrown(Throwable error) throws E {
        throw (E) error;
    }

    /**
     * Looks the key up, and waits if another caller computes it: without a thread when the cache is an
     * {@link AsyncComputeCache} (every cache of the library is), else on the wait scheduler; under the call's name.
     */
    private static Mono<ComputeOutcome> begun(MethodInvocation template, FetchOrComputeOperation operation,
            ComputeCache values, String key, ComputeOptions options) {
        String name = operation.tagName();
        if (values instanceof AsyncComputeCache async) {
            // a turn that came as the subscriber cancelled is dropped by fromFuture: computed all the same, for the
            // others (the same as ReactiveWaits' late outcome below)
            return Mono.fromFuture(() -> named(name, () -> async.beginAsync(key, options, "")))
                    .doOnDiscard(ComputeOutcome.Compute.class,
                            turn -> compute(template, operation, values, turn.ticket(), options));
        }
        return ReactiveWaits.off(() -> begin(values, key, options, name), true, late -> {
            if (late instanceof ComputeOutcome.Compute turn) { // its subscriber has gone, not the others
                compute(template, operation, values, turn.ticket(), options);
            }
        });
    }

    /** Looks the key up, and waits if another caller computes it: on the wait scheduler, under the call's name. */
    private static ComputeOutcome begin(ComputeCache values, String key, ComputeOptions options, String name) {
        return named(name, () -> values.begin(key, options, ""));
    }

    /**
     * {@code call}'s result, called under the call's name: the cache's events are told in this caller's context, and
     * an asynchronous call captures it for the events it tells later.
     */
    private static <T> T named(String name, Supplier<T> call) {
        String previous = CallNames.enter(name);
        try {
            return call.get();
        }
        finally {
            CallNames.restore(previous);
        }
    }

    /** The {@code outcome} of a call that {@code begin} answered so, as the {@code locks.compute} meter has it. */
    private static String outcomeTag(ComputeOutcome outcome) {
        LocksObserver.ComputeResult result = outcome instanceof ComputeOutcome.Hit ? LocksObserver.ComputeResult.HIT
                : outcome instanceof ComputeOutcome.Compute ? LocksObserver.ComputeResult.COMPUTED
                : outcome instanceof ComputeOutcome.Value ? LocksObserver.ComputeResult.WAITED
                : LocksObserver.ComputeResult.FAILED;
        return result.tag();
    }

    /** What a hit or a wait brought: the value, or the computer's error. */
    private static Mono<Optional<Object>> received(ComputeOutcome outcome) {
        if (outcome instanceof ComputeOutcome.Failed failed) {
            return Mono.error(failed.error());
        }
        return Mono.just(Optional.ofNullable(outcome instanceof ComputeOutcome.Hit hit ? hit.value()
                : ((ComputeOutcome.Value) outcome).value()));
    }

    /**
     * Subscribes to the method's {@code Mono} as the ticket's computer, now and whatever becomes of the subscriber
     * (a cached {@code Mono} of its settled result is returned), with the compute timeout.
     */
    private static Mono<Optional<Object>> compute(MethodInvocation template, FetchOrComputeOperation operation,
            ComputeCache values, ComputeTicket ticket, ComputeOptions options) {
        String name = operation.tagName();
        Duration timeout = options.computeTimeout();
        ComputeTimeoutException stalled = new ComputeTimeoutException(ticket.key(), timeout, "The computation of '"
                + ticket.key() + "' did not finish within its compute timeout of " + timeout.toMillis() + " ms and was"
                + " cancelled; a caller waiting for it computes in its turn. Raise 'computeTimeout' (or"
                + " locks.compute.timeout) if the computation needs longer.");
        Mono<Optional<Object>> settled = Mono.defer(() -> publisher(template))
                .timeout(timeout, Mono.error(stalled))
                .map(result -> Optional.ofNullable(operation.toStored(result)))
                .defaultIfEmpty(Optional.empty())
                .onErrorResume(error -> error == stalled ? Mono.error(stalled)
                        : settling(() -> fail(values, ticket, error, name)))
                .flatMap(stored -> settling(() -> complete(values, ticket, stored, options, name)))
                .cache();
        settled.subscribe(stored -> {
        }, error -> {
        });
        return settled;
    }

    /**
     * A call with the ticket, on {@link Schedulers#boundedElastic()}: on Redis it is a round trip, and were it queued
     * on the wait scheduler behind the waits for the same key that it would end, a hot key would starve its own
     * computer (the release of {@link ReactiveLockedCalls} goes there for the same reason).
     */
    private static Mono<Optional<Object>> settling(ReactiveWaits.Call<Optional<Object>> call) {
        return Mono.defer(() -> {
            try {
                return Mono.just(call.call());
            }
            catch (Throwable ex) {
                return Mono.<Optional<Object>>error(ex);
            }
        }).subscribeOn(Schedulers.boundedElastic());
    }

    /** Runs the method under no call's name (its own calls are not this one's) and returns its {@code Mono}. */
    private static Mono<?> publisher(MethodInvocation template) {
        String previous = CallNames.enter(null);
        try {
            Object publisher = ReactiveLockedCalls.cloned(template).proceed();
            return publisher == null ? Mono.empty() : Mono.from((Publisher<?>) publisher);
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
        finally {
            CallNames.restore(previous);
        }
    }

    private static Optional<Object> complete(ComputeCache values, ComputeTicket ticket, Optional<Object> stored,
            ComputeOptions options, String name) {
        String previous = CallNames.enter(name);
        try {
            values.complete(ticket, stored.orElse(null), options.ttl());
            return stored;
        }
        finally {
            CallNames.restore(previous);
        }
    }

    /** Hands the computation's error to the waiters, and always throws it on to the computer's caller. */
    private static Optional<Object> fail(ComputeCache values, ComputeTicket ticket, Throwable error, String name)
            throws Throwable {
        String previous = CallNames.enter(name);
        try {
            values.fail(ticket, error);
        }
        catch (RuntimeException ex) {
            logger.warn("Could not hand the failure of computing '" + ticket.key() + "' to its waiters; they take"
                    + " over once its compute timeout ends", ex);
        }
        finally {
            CallNames.restore(previous);
        }
        throw error;
    }
}
