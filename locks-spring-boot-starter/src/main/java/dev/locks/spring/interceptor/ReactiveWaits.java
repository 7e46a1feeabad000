package dev.locks.spring.interceptor;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Blocking calls into the compute cache (a lookup, or a wait for another caller's computation) for the reactive
 * {@code @FetchOrCompute}, run off the subscriber's thread on a bounded scheduler of the starter's own: threads
 * "locks-wait-N", as many as {@link Schedulers#boundedElastic()} has (10 per core, 100,000 queued tasks), daemon,
 * idle ones gone after 60 s. Its own, so that a hot key's waiters, which may take every one of its threads, never
 * starve other work of the application, nor the calls that would let them in (those run on
 * {@link Schedulers#boundedElastic()}). Only a {@link dev.locks.ComputeCache} that is not a
 * {@link dev.locks.support.AsyncComputeCache} (an application's own; every cache of the library is one) waits here:
 * {@link dev.locks.ComputeCache#begin} is a blocking call, and this is what stays of the pool. {@code @Locked}
 * waits through {@link dev.locks.LockRegistry#acquireAsync}, and {@code @FetchOrCompute} through
 * {@code AsyncComputeCache}, holding none of its threads ({@link ReactiveLockedCalls}, {@link ReactiveComputeCalls}).
 */
final class ReactiveWaits {

    private static final Scheduler SCHEDULER = Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
            Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, "locks-wait", 60, true);

    private ReactiveWaits() {
    }

    /**
     * A {@code Mono} of {@code call}'s result (empty for {@code null}), run on the wait scheduler once per
     * subscription.
     *
     * @param interruptOnCancel whether a cancellation interrupts the running call (an acquire: the engine stops
     *        waiting, holding nothing); else the call runs on and its result is dropped
     * @param late what becomes of a result that arrives after the subscriber has gone (a lease: closed)
     */
    static <T> Mono<T> off(Call<T> call, boolean interruptOnCancel, Consumer<T> late) {
        return Mono.create(sink -> new Subscription<>(sink, interruptOnCancel, late).start(call));
    }

    /** A blocking call that may throw anything. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws Throwable;
    }

    /** As {@link Callable#call}, which may throw exceptions but not other throwables. */
    private static <T> T callable(Call<T> call) throws Exception {
        try {
            return call.call();
        }
        catch (Exception | Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            throw new UndeclaredThrowableException(ex);
        }
    }

    /** One subscription's call: it delivers its result or error only if the subscriber is still there. */
    private static final class Subscription<T> {

        private static final int RUNNING = 0;

        private static final int DELIVERED = 1;

        private static final int CANCELLED = 2;

        private final MonoSink<T> sink;

        private final boolean interruptOnCancel;

        private final Consumer<T> late;

        private final AtomicInteger state = new AtomicInteger(RUNNING);

        Subscription(MonoSink<T> sink, boolean interruptOnCancel, Consumer<T> late) {
            this.sink = sink;
            this.interruptOnCancel = interruptOnCancel;
            this.late = late;
        }

        void start(Call<T> call) {
            Disposable task;
            try {
                task = SCHEDULER.schedule(() -> run(call));
            }
            catch (RuntimeException ex) { // rejected: the scheduler's queue is full
                sink.error(ex);
                return;
            }
            sink.onCancel(() -> {
                if (state.compareAndSet(RUNNING, CANCELLED) && interruptOnCancel) {
                    task.dispose();
                }
            });
        }

        private void run(Call<T> call) {
            T result;
            try {
                result = callable(call);
            }
            catch (Throwable ex) {
                if (state.compareAndSet(RUNNING, DELIVERED)) {
                    sink.error(ex);
                }
                Thread.interrupted(); // a cancellation's interrupt is spent
                return;
            }
            if (state.compareAndSet(RUNNING, DELIVERED)) {
                sink.success(result);
                return;
            }
            Thread.interrupted();
            if (result != null) {
                late.accept(result);
            }
        }
    }
}
