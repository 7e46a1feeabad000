package dev.locks.internal;

import static dev.locks.internal.ComputeCalls.cast;
import static dev.locks.internal.ComputeCalls.resultOf;

import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LocksClock;
import dev.locks.LocksObserver.ComputeResult;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A compute engine's calls that wait without a thread ({@link ComputeEngine#beginAsync},
 * {@link ComputeEngine#fetchOrComputeAsync}): the same algorithm as the blocking calls (hit, the node-local flight,
 * the backing's turn, stale values and refreshes, the events), with a waiter that is a {@link FlightWait} in the key's
 * flight instead of a parked thread. Each step runs on the thread the previous one ended on, except that a blocking
 * call of a store never runs on a thread that may not block:
 * <ul>
 *   <li>in memory nothing blocks, and a call runs on its caller's thread until it waits;</li>
 *   <li>in front of a store, lookups and the ends of computations (storing a value, telling a failure) run on the
 *       lookup threads of {@link StoreCallThreads}, and the node's caller in the protocol across nodes (which may
 *       wait for another node's computer) on a turn thread of its own;</li>
 *   <li>waiters are woken, and their futures completed, on the pool of {@link AsyncWaits}, never on the thread that
 *       settled the flight (a store client's notice thread, say).</li>
 * </ul>
 * The threads start with the first call. Closing fails every pending call with an {@link IllegalStateException}.
 */
final class AsyncComputeCalls implements AutoCloseable {

    private final ComputeEngine engine;
    private final ComputeBacking backing;
    private final ComputeFlights flights;
    private final ComputeEvents events;
    private final LocksClock clock;
    private final boolean memory;
    private final String backend;
    /** The futures of calls not yet ended, failed by {@link #close()}. */
    private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
    private volatile AsyncWaits waits;
    private volatile StoreCallThreads storeCalls;
    private volatile boolean closed;

    AsyncComputeCalls(ComputeEngine engine, ComputeBacking backing, ComputeFlights flights, ComputeEvents events,
            LocksClock clock, boolean memory, String backend) {
        this.engine = engine;
        this.backing = backing;
        this.flights = flights;
        this.events = events;
        this.clock = clock;
        this.memory = memory;
        this.backend = backend;
    }

    /** See {@link ComputeEngine#beginAsync}; the arguments are checked. */
    CompletableFuture<ComputeOutcome> begin(String key, ComputeOptions options, String hint) {
        Begin call = new Begin(key, options, hint);
        return call.start(call::lookUp);
    }

    /** See {@link ComputeEngine#fetchOrComputeAsync}; the arguments are checked. */
    <V> CompletableFuture<V> fetchOrCompute(String key, ComputeOptions options,
            Supplier<? extends CompletionStage<V>> compute) {
        Fetch<V> call = new Fetch<>(key, options, compute);
        return call.start(call::lookUp);
    }

    @Override
    public void close() {
        AsyncWaits pool;
        StoreCallThreads calls;
        synchronized (this) {
            closed = true;
            pool = waits;
            calls = storeCalls;
        }
        for (CompletableFuture<?> call : pending) {
            call.completeExceptionally(engine.closedError());
        }
        if (pool != null) {
            pool.close();
        }
        if (calls != null) {
            calls.close();
        }
    }

    /** The threads that wake waiters and complete their futures, started by the first call. */
    private AsyncWaits waits() {
        AsyncWaits started = waits;
        if (started != null) {
            return started;
        }
        synchronized (this) {
            if (closed) {
                throw engine.closedError();
            }
            if (waits == null) {
                int cores = Runtime.getRuntime().availableProcessors();
                waits = new AsyncWaits("locks-" + backend + "-compute", Math.min(4, Math.max(2, cores)));
            }
            return waits;
        }
    }

    /** In front of a store, the threads of its blocking calls, started by the first call. */
    private StoreCallThreads storeCalls() {
        StoreCallThreads started = storeCalls;
        if (started != null) {
            return started;
        }
        synchronized (this) {
            if (closed) {
                throw engine.closedError();
            }
            if (storeCalls == null) {
                int cores = Runtime.getRuntime().availableProcessors();
                storeCalls = new StoreCallThreads("locks-" + backend + "-compute",
                        Math.min(16, Math.max(4, 2 * cores)));
            }
            return storeCalls;
        }
    }

    /** One call: its future, and what each of its steps needs. */
    private abstract class Call<R> {

        final CompletableFuture<R> result = new CompletableFuture<>();
        final String key;
        final ComputeOptions options;
        final String hint;
        final long started = events.start();
        final Executor context = events.callerContext();
        AsyncWaits pool;
        private boolean tracked;

        Call(String key, ComputeOptions options, String hint) {
            this.key = key;
            this.options = options;
            this.hint = hint;
        }

        /**
         * Runs {@code lookUp} on the caller's thread in memory (a hit is not tracked: it ends before this returns),
         * else on a lookup thread.
         */
        CompletableFuture<R> start(Runnable lookUp) {
            try {
                pool = waits();
                if (memory) {
                    lookUp.run();
                } else {
                    track();
                    storeCalls().lookUp(lookUp);
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
            return result;
        }

        /** From here the call may wait: {@link #close()} fails it if it has not ended by then. */
        void track() {
            if (tracked) {
                return;
            }
            tracked = true;
            pending.add(result);
            result.whenComplete((value, error) -> pending.remove(result));
            if (closed) { // closed meanwhile: close() may have missed it
                result.completeExceptionally(engine.closedError());
            }
        }

        /**
         * A call that may block: a store's, on a lookup thread; in memory one that takes a flight's lock (which may
         * park a moment), on the pool, so that it never runs on an event loop's thread.
         */
        void blocking(Runnable call) {
            if (memory) {
                pool.execute(call);
            } else {
                storeCalls().lookUp(call);
            }
        }

        /**
         * Joins the node-local flight of the miss; the caller with the turn asks the backing (in a store: the protocol
         * across nodes). {@code compute} gets the turn when the caller is to compute; it returns false when the caller
         * went away meanwhile, and the turn goes to the next waiter on this node.
         */
        void join(Predicate<ComputeOutcome.Compute> compute,
                Consumer<ComputeOutcome> received, Consumer<Throwable> failed) {
            if (memory) { // the lookup ran on the caller's thread: the flight's lock is taken on the pool
                track();
                pool.execute(() -> joinHere(compute, received, failed));
            } else {
                joinHere(compute, received, failed); // on a lookup thread
            }
        }

        private void joinHere(Predicate<ComputeOutcome.Compute> compute,
                Consumer<ComputeOutcome> received, Consumer<Throwable> failed) {
            if (result.isDone()) {
                return; // cancelled before it joined
            }
            long since = clock.nanoTime();
            CompletableFuture<ComputeOutcome> local;
            try {
                local = flights.joinAsync(key, hint, options, pool);
            } catch (RuntimeException | Error e) {
                failed.accept(e);
                return;
            }
            result.whenComplete((value, error) -> {
                if (error != null) {
                    local.cancel(false); // the caller went away, or the engine closed: it leaves the flight
                }
            });
            local.whenComplete((outcome, error) -> {
                if (error != null) {
                    if (!result.isDone()) {
                        failed.accept(unwrapped(error));
                    }
                } else if (!(outcome instanceof ComputeOutcome.Compute turn)) {
                    if (!result.isDone()) {
                        received.accept(outcome);
                    }
                } else if (memory) {
                    turn(turn, since, compute, received, failed);
                } else {
                    storeCalls().turn(() -> turn(turn, since, compute, received, failed));
                }
            });
        }

        private void turn(ComputeOutcome.Compute turn, long since, Predicate<ComputeOutcome.Compute> compute,
                Consumer<ComputeOutcome> received, Consumer<Throwable> failed) {
            if (result.isDone()) {
                flights.handOver(turn.ticket()); // the caller went away before its turn began: the next one's
                return;
            }
            ComputeOutcome outcome;
            try {
                outcome = backing.turn(key, turn, hint, options, since);
            } catch (RuntimeException | Error e) {
                if (!result.isDone()) {
                    failed.accept(e);
                }
                return;
            }
            if (!(outcome instanceof ComputeOutcome.Compute mine)) {
                if (!result.isDone()) {
                    received.accept(outcome);
                }
            } else if (!compute.test(mine)) {
                flights.handOver(turn.ticket()); // the caller went away as its turn came: this node's next waiter's
            }
        }

        void report(ComputeResult event) {
            events.report(event, started, context);
        }

        void fail(Throwable error) {
            if (!result.isDone()) {
                report(ComputeResult.FAILED);
                result.completeExceptionally(error);
            }
        }
    }

    /** {@code begin}: a hit, or the node-local flight of the miss, whose outcome the caller gets as it is. */
    private final class Begin extends Call<ComputeOutcome> {

        Begin(String key, ComputeOptions options, String hint) {
            super(key, options, hint);
        }

        void lookUp() {
            if (result.isDone()) {
                return; // cancelled before it began
            }
            Object stored;
            try {
                stored = backing.get(key);
            } catch (RuntimeException | Error e) {
                fail(e);
                return;
            }
            if (stored != null) {
                report(ComputeResult.HIT);
                result.complete(new ComputeOutcome.Hit(stored));
                return;
            }
            join(result::complete, outcome -> {
                report(resultOf(outcome));
                result.complete(outcome);
            }, this::fail);
        }
    }

    /** A fetch-or-compute whose computation is asynchronous, in its plain and its fresh form (section 11). */
    private final class Fetch<V> extends Call<V> {

        private final Supplier<? extends CompletionStage<V>> compute;
        private final boolean fresh;
        /** A stale value to serve instead of a failure; {@code null} for none. */
        private Object stale;

        Fetch(String key, ComputeOptions options, Supplier<? extends CompletionStage<V>> compute) {
            super(key, options, "");
            this.compute = compute;
            this.fresh = options.refreshAfter().isPresent() || options.staleIfError().isPresent();
        }

        /** The hit path (fresh, due, stale or backing off), then the miss. */
        void lookUp() {
            if (result.isDone()) {
                return;
            }
            try {
                if (fresh ? freshHit() : plainHit()) {
                    return;
                }
            } catch (RuntimeException | Error e) {
                fail(e);
                return;
            }
            join(this::computeNow, this::received, this::failed);
        }

        private boolean plainHit() {
            Object stored = backing.get(key);
            if (stored == null) {
                return false;
            }
            report(ComputeResult.HIT);
            result.complete(cast(stored));
            return true;
        }

        private boolean freshHit() {
            ValueStore.Entry entry = backing.entry(key);
            if (entry != null && !entry.stale()) {
                report(ComputeResult.HIT);
                Duration refreshAfter = options.refreshAfter().orElse(null);
                if (refreshAfter != null && !entry.backingOff() && entry.ageMillis() >= refreshAfter.toMillis()) {
                    blocking(() -> engine.startRefresh(key, options, refreshAfter, this::awaited));
                }
                result.complete(cast(entry.value()));
                return true;
            }
            stale = entry == null || options.staleIfError().isEmpty() ? null : entry.value();
            if (stale != null && entry.backingOff()) {
                serve(null);
                return true;
            }
            return false;
        }

        /** The caller has the turn: it starts the computation, and ends the miss with its result. */
        private boolean computeNow(ComputeOutcome.Compute turn) {
            if (result.isDone()) {
                return false;
            }
            ComputeTicket ticket = turn.ticket();
            ComputeResult computed = backing.promoted(ticket) ? ComputeResult.PROMOTED : ComputeResult.COMPUTED;
            CompletionStage<V> computation;
            try {
                computation = compute.get();
                if (computation == null) {
                    throw new NullPointerException("the computation of '" + key + "' returned no CompletionStage");
                }
            } catch (Throwable e) {
                blocking(() -> computationFailed(ticket, e));
                return true;
            }
            computation.whenComplete((value, error) -> blocking(() -> {
                if (error != null) {
                    computationFailed(ticket, unwrapped(error));
                } else {
                    computed(ticket, value, computed);
                }
            }));
            return true;
        }

        private void computed(ComputeTicket ticket, V value, ComputeResult computed) {
            try {
                backing.complete(ticket, value, options.ttl());
            } catch (RuntimeException | Error e) {
                report(ComputeResult.FAILED);
                result.completeExceptionally(e);
                return;
            }
            report(computed);
            result.complete(value);
        }

        /** The caller's own computation failed: its waiters get the error, the caller it or the stale value. */
        private void computationFailed(ComputeTicket ticket, Throwable error) {
            if (stale != null) {
                engine.backOff(key); // before the failure is known: callers that come later find it backing off
                engine.failOwn(ticket, error);
                serve(error);
                return;
            }
            engine.failOwn(ticket, error);
            report(ComputeResult.FAILED);
            result.completeExceptionally(error);
        }

        /** Another computer's value or failure. */
        private void received(ComputeOutcome outcome) {
            if (stale != null && outcome instanceof ComputeOutcome.Failed failed) {
                serve(failed.error());
                return;
            }
            report(resultOf(outcome));
            if (outcome instanceof ComputeOutcome.Failed failed) {
                result.completeExceptionally(failed.error());
            } else {
                result.complete(cast(outcome instanceof ComputeOutcome.Hit hit ? hit.value()
                        : ((ComputeOutcome.Value) outcome).value()));
            }
        }

        /** The wait failed (its wait time, the store): the stale value instead of a timeout, if there is one. */
        private void failed(Throwable error) {
            if (stale != null && error instanceof ComputeTimeoutException) {
                serve(error);
            } else {
                fail(error);
            }
        }

        private void serve(Throwable error) {
            report(ComputeResult.STALE);
            if (error != null || !memory) {
                engine.warnServed(key, error);
            } else {
                pool.execute(() -> engine.warnServed(key, null)); // a log line, never on the caller's event loop
            }
            result.complete(cast(stale));
        }

        /** The computation, waited for on a refresh thread of the engine. */
        private V awaited() {
            try {
                return compute.get().toCompletableFuture().join();
            } catch (CompletionException e) {
                throw ComputeCalls.sneaky(unwrapped(e));
            }
        }
    }

    private static Throwable unwrapped(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
