package dev.locks.spring.cache;

import dev.locks.ComputeCache;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.spring.interceptor.CallNames;
import dev.locks.spring.interceptor.CallObservations;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.cache.Cache;
import org.springframework.cache.Cache.ValueWrapper;
import org.springframework.cache.interceptor.CacheOperationInvoker;

/**
 * The misses of {@link SingleFlightCache}s, each loaded once across all nodes with the {@link ComputeCache}'s
 * protocol form ({@link ComputeCache#begin}, then {@link ComputeCache#complete} or {@link ComputeCache#fail}). The
 * Spring cache stays the store of the values; the compute cache only coordinates the miss and carries its result:
 * <ol>
 *   <li>On each node, the first caller of a missing key leads the node's part of the miss ({@link Landing}): it
 *       looks the cache up once more and takes part in the miss across nodes; the node's later callers of the key
 *       wait for it, and it lets them go only after it has stored the value into the node's cache (or failed). The
 *       compute cache's own flight of a node ends for later callers as soon as the value arrives there (before it,
 *       when the key is invalidated): a caller of a per-node cache (Caffeine) that came then would start a miss of
 *       its own.</li>
 *   <li>The caller that becomes the miss's computer looks the Spring cache up once more (another node may just have
 *       stored the value in a shared cache), else calls its loader and puts the value into its cache.</li>
 *   <li>It then completes its ticket with a TTL of {@link #GRACE} (2 s): the compute cache hands the value to every
 *       waiter, on this node as the object itself, on other nodes through the backend's store, and keeps it that long
 *       only, for the nodes whose first caller reaches the compute cache just after the miss ended (on a loaded
 *       machine, a node's first caller can come 50 ms and more after another node's). An eviction of the key through
 *       the wrapper ({@code evict}, {@code evictIfPresent}, so {@code @CacheEvict}) invalidates that copy too, so
 *       none outlives an eviction; it outlives the Spring cache's own TTL, or a {@code clear()} (whose keys the
 *       wrapper does not know), by {@link #GRACE} at most.</li>
 *   <li>Each node's leader that waited stores the value into its node's cache ({@link Cache#putIfAbsent}: a shared
 *       cache, which has it already, is not written again), then lets its node's other callers go with it.</li>
 *   <li>A loader that throws fails the ticket: every waiter gets its exception (this node's the object itself, other
 *       nodes' a {@link dev.locks.ComputeFailedException} with its class name and message), and nothing is stored.</li>
 *   <li>A value that the backend cannot carry (on Redis, one that its serializer refuses: not
 *       {@link java.io.Serializable}, or outside {@code locks.redis.serialization.allowed-classes}) fails the call
 *       and its waiters with the serializer's {@link IllegalArgumentException}, and is evicted from the computer's
 *       cache again, as the compute cache does with a value it cannot store.</li>
 * </ol>
 * Every miss runs under the cache's name ({@link CallNames}), so the {@code locks.compute} meters of the compute
 * cache's events carry {@code name} = the cache's name, and inside an Observation {@code locks.compute} of that name;
 * the loader runs under its caller's name. A miss waits as long as the compute cache's defaults say
 * ({@code locks.compute.timeout}: a loader slower than that is taken over by a waiter).
 */
final class CacheFlights {

    private static final Log logger = LogFactory.getLog(CacheFlights.class);

    /**
     * How long the compute cache keeps a loaded value after its miss, for the callers of other nodes that reach it
     * just after the miss ended (their node's first caller came late): they get the value rather than load it again.
     * Bounded, and taken out by an eviction of the key through the wrapper, so that the copy never outlives the
     * cache's own eviction, and outlives its TTL or a {@code clear()} by this much at most.
     */
    static final Duration GRACE = Duration.ofSeconds(2);

    private final Supplier<ComputeCache> computeCache;

    private final Supplier<CallObservations> observations;

    private final Supplier<LocksObserver> events;

    private final Executor waits;

    /**
     * @param computeCache looked up on the first miss
     * @param observations looked up on the first miss
     * @param events the observers of the compute cache (looked up on the first miss), told how a caller that waited
     *        for its node's leader ended, as the compute cache tells them of the callers it sees
     * @param waits where the asynchronous misses ({@link Cache#retrieve(Object, Supplier)}) wait, off the caller's
     *        thread
     */
    CacheFlights(Supplier<ComputeCache> computeCache, Supplier<CallObservations> observations,
            Supplier<LocksObserver> events, Executor waits) {
        this.computeCache = computeCache;
        this.observations = observations;
        this.events = events;
        this.waits = waits;
    }

    /** The miss of {@link SingleFlightCache#get(Object, Callable)}. */
    @SuppressWarnings("unchecked")
    <T> T load(SingleFlightCache cache, Object key, Callable<T> loader) {
        ComputeCache values = computeCache.get();
        String name = cache.getName();
        String caller = CallNames.enter(name);
        try {
            return (T) observations.get().observe(CallObservations.COMPUTE, name, values.backend(),
                    () -> land(cache, key, loader, values, caller));
        }
        catch (RuntimeException | Error ex) {
            throw ex;
        }
        catch (Throwable ex) { // nothing above throws a checked exception
            throw new UndeclaredThrowableException(ex);
        }
        finally {
            CallNames.restore(caller);
        }
    }

    /**
     * This node's part of a miss: the node's first caller of the key leads it (looks the cache up once more, then
     * takes part in the miss across nodes, and stores the value into the node's cache), and the node's later callers
     * wait for the leader, which lets them go only once the value is stored. So no caller of the node finds the miss
     * over and the value not yet in the cache, which would load again (the compute cache's own flight of the node
     * ends, for callers that come later, as soon as the value arrives), however long the store takes.
     */
    private Object land(SingleFlightCache cache, Object key, Callable<?> loader, ComputeCache values, String caller) {
        Duration waitTime = values.defaultOptions().waitTime().orElse(null);
        long since = System.nanoTime();
        while (true) {
            Landing mine = new Landing();
            Landing leading = cache.landings().putIfAbsent(key, mine);
            if (leading == null) {
                return lead(cache, key, loader, values, caller, mine);
            }
            if (leading.leader == Thread.currentThread()) { // its own loader asks for the key: the compute cache says so
                return miss(cache, key, loader, values, caller);
            }
            Object landed = follow(leading, cache.flightKey(key), key, loader, waitTime, since);
            if (landed != Landing.RETRY) {
                return landed;
            }
        }
    }

    /** The leader's part: this node's value stored, or the failure thrown, before its followers are let go. */
    private Object lead(SingleFlightCache cache, Object key, Callable<?> loader, ComputeCache values, String caller,
            Landing mine) {
        Object outcome = Landing.RETRY;
        try {
            long since = System.nanoTime();
            ValueWrapper stored = cache.getTargetCache().get(key); // a leader that has just left stored it first
            if (stored != null) {
                events.get().onCompute(ComputeResult.HIT, System.nanoTime() - since);
                outcome = stored.get();
            }
            else {
                outcome = miss(cache, key, loader, values, caller);
            }
            return outcome;
        }
        catch (CancellationException | ComputeTimeoutException ex) { // its own wait ended: a follower leads now
            throw ex;
        }
        catch (RuntimeException | Error ex) {
            outcome = new Landing.Failure(ex instanceof Cache.ValueRetrievalException retrieval
                    ? retrieval.getCause() : ex);
            throw ex;
        }
        finally {
            cache.landings().remove(key, mine);
            mine.outcome.complete(outcome);
        }
    }

    /**
     * A follower's part: the leader's value, its failure as this caller's {@code ValueRetrievalException}, or
     * {@link Landing#RETRY} when the leader stopped waiting; reported to the observers as a waiter's.
     */
    private Object follow(Landing leading, String flightKey, Object key, Callable<?> loader, Duration waitTime,
            long since) {
        Object outcome;
        try {
            outcome = waitTime == null ? leading.outcome.get()
                    : leading.outcome.get(waitTime.toNanos() - (System.nanoTime() - since), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new CancellationException("Interrupted while waiting for the load of '" + flightKey
                    + "'; the load goes on for the other callers");
        }
        catch (TimeoutException ex) {
            throw new ComputeTimeoutException(flightKey, waitTime);
        }
        catch (ExecutionException ex) { // never: a landing's outcome completes normally
            throw new IllegalStateException(ex.getCause());
        }
        if (outcome == Landing.RETRY) {
            return outcome;
        }
        long waited = System.nanoTime() - since;
        if (outcome instanceof Landing.Failure failure) {
            events.get().onCompute(ComputeResult.FAILED, waited);
            throw new Cache.ValueRetrievalException(key, loader, asLoaderCause(failure.error()));
        }
        events.get().onCompute(ComputeResult.WAITED, waited);
        return outcome;
    }

    /** The leader in the miss across nodes: computes, or waits and stores what it received. */
    private Object miss(SingleFlightCache cache, Object key, Callable<?> loader, ComputeCache values, String caller) {
        ComputeOutcome outcome = values.begin(cache.flightKey(key), values.defaultOptions(), "");
        if (outcome instanceof ComputeOutcome.Compute turn) {
            return compute(cache, key, loader, values, turn.ticket(), caller);
        }
        return received(cache, key, loader, outcome);
    }

    /** The computer's part of a synchronous miss. */
    private Object compute(SingleFlightCache cache, Object key, Callable<?> loader, ComputeCache values,
            ComputeTicket ticket, String caller) {
        Cache target = cache.getTargetCache();
        ValueWrapper cached;
        try {
            cached = target.get(key);
        }
        catch (RuntimeException | Error ex) {
            failQuietly(values, ticket, ex);
            throw ex;
        }
        if (cached != null) {
            complete(values, ticket, cached.get(), () -> {
            });
            return cached.get();
        }
        Object value;
        try {
            value = callUnder(caller, loader);
        }
        catch (Throwable ex) {
            failQuietly(values, ticket, original(ex));
            throw new Cache.ValueRetrievalException(key, loader, ex);
        }
        try {
            target.put(key, value);
        }
        catch (RuntimeException | Error ex) { // the cache's own refusal (a null it does not allow, its serializer)
            failQuietly(values, ticket, ex);
            throw ex;
        }
        complete(values, ticket, value, () -> target.evict(key));
        return value;
    }

    /**
     * Hands {@code value} to the miss's waiters, and leaves it in the compute cache for {@link #GRACE} only. A backend
     * that cannot carry the value fails the call (and the waiters, which the compute cache has failed already), after
     * {@code undo}; a backend that cannot be reached fails this node's waiters (the compute cache does that) but not
     * the computer, whose value is loaded and stored.
     */
    private static void complete(ComputeCache values, ComputeTicket ticket, Object value, Runnable undo) {
        try {
            values.complete(ticket, value, GRACE);
        }
        catch (LockUnavailableException ex) {
            logger.debug("Could not hand the value of '" + ticket.key() + "' to its waiters", ex);
        }
        catch (RuntimeException ex) {
            undo.run();
            throw ex;
        }
    }

    /**
     * Takes the copy of {@code key}'s value out of the compute cache, as the wrapped cache evicts the key, so that no
     * miss after the eviction gets it. A backend that cannot be reached does not fail the eviction: the copy ends
     * with its {@link #GRACE} anyway.
     */
    void evicted(SingleFlightCache cache, Object key) {
        try {
            computeCache.get().invalidate(cache.flightKey(key));
        }
        catch (RuntimeException ex) {
            logger.warn("Could not invalidate '" + cache.flightKey(key) + "' in the compute cache as its cache evicted"
                    + " it; the copy there ends within " + GRACE, ex);
        }
    }

    /** What a waiter received: stored into its own cache, or the computer's failure thrown. */
    private static Object received(SingleFlightCache cache, Object key, Callable<?> loader, ComputeOutcome outcome) {
        if (outcome instanceof ComputeOutcome.Failed failed) {
            throw new Cache.ValueRetrievalException(key, loader, asLoaderCause(failed.error()));
        }
        Object value = outcome instanceof ComputeOutcome.Hit hit ? hit.value() : ((ComputeOutcome.Value) outcome).value();
        cache.getTargetCache().putIfAbsent(key, value);
        return value;
    }

    /** The miss of {@link SingleFlightCache#retrieve(Object, Supplier)}: waits on {@link #waits}. */
    <T> CompletableFuture<T> loadAsync(SingleFlightCache cache, Object key, Supplier<CompletableFuture<T>> loader) {
        ComputeCache values = computeCache.get();
        String name = cache.getName();
        CallObservations.Stop observed = observations.get().start(CallObservations.COMPUTE, name, values.backend());
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            waits.execute(() -> beginAsync(cache, key, loader, values, result));
        }
        catch (RuntimeException ex) { // rejected: the executor is shut down
            result.completeExceptionally(ex);
        }
        return result.whenComplete((value, error) -> observed.stop(error));
    }

    @SuppressWarnings("unchecked")
    private <T> void beginAsync(SingleFlightCache cache, Object key, Supplier<CompletableFuture<T>> loader,
            ComputeCache values, CompletableFuture<T> result) {
        String name = cache.getName();
        ComputeOutcome outcome;
        String caller = CallNames.enter(name);
        try {
            outcome = values.begin(cache.flightKey(key), values.defaultOptions(), "");
        }
        catch (RuntimeException | Error ex) {
            result.completeExceptionally(ex);
            return;
        }
        finally {
            CallNames.restore(caller);
        }
        if (outcome instanceof ComputeOutcome.Failed failed) {
            result.completeExceptionally(failed.error());
        }
        else if (outcome instanceof ComputeOutcome.Compute turn) {
            computeAsync(cache, loader, values, turn.ticket(), result);
        }
        else {
            result.complete((T) (outcome instanceof ComputeOutcome.Hit hit ? hit.value()
                    : ((ComputeOutcome.Value) outcome).value()));
        }
    }

    /**
     * The computer's part of an asynchronous miss: the wrapped cache stores what the returned future brings, as it
     * does with its own loader's; the ticket is settled on {@link #waits}, never on the loader's thread (an event
     * loop, maybe).
     */
    private <T> void computeAsync(SingleFlightCache cache, Supplier<CompletableFuture<T>> loader, ComputeCache values,
            ComputeTicket ticket, CompletableFuture<T> result) {
        CompletableFuture<T> loading;
        try {
            loading = callUnder(null, loader::get);
        }
        catch (Throwable ex) {
            failQuietly(values, ticket, ex);
            result.completeExceptionally(ex);
            return;
        }
        loading.whenCompleteAsync((value, error) -> {
            String previous = CallNames.enter(cache.getName());
            try {
                if (error != null) {
                    Throwable cause = error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    failQuietly(values, ticket, cause);
                    result.completeExceptionally(cause);
                    return;
                }
                complete(values, ticket, value, () -> {
                });
                result.complete(value);
            }
            catch (RuntimeException | Error ex) {
                result.completeExceptionally(ex);
            }
            finally {
                CallNames.restore(previous);
            }
        }, waits);
    }

    /** Runs the loader under its caller's name, so that its own calls are not counted as this cache's. */
    private static <T> T callUnder(String name, Callable<T> loader) throws Exception {
        String previous = CallNames.enter(name);
        try {
            return loader.call();
        }
        finally {
            CallNames.restore(previous);
        }
    }

    /** Fails the ticket for its waiters; the caller throws its own exception whatever becomes of this. */
    private static void failQuietly(ComputeCache values, ComputeTicket ticket, Throwable error) {
        try {
            values.fail(ticket, error);
        }
        catch (RuntimeException ex) {
            logger.warn("Could not hand the failure of loading '" + ticket.key() + "' to its waiters; they take"
                    + " over once its compute timeout ends", ex);
        }
    }

    /**
     * The exception a loader threw, without the wrapper of Spring's cache interceptor around a method's exception,
     * so that the waiters of other nodes learn the method's exception class.
     */
    private static Throwable original(Throwable thrown) {
        return thrown instanceof CacheOperationInvoker.ThrowableWrapper wrapper ? wrapper.getOriginal() : thrown;
    }

    /**
     * The cause of a waiter's {@code ValueRetrievalException}: Spring's cache interceptor rethrows a runtime
     * exception or error as it is, and unwraps a checked one only from its own wrapper, as its loader gives it.
     */
    private static Throwable asLoaderCause(Throwable error) {
        return error instanceof RuntimeException || error instanceof Error ? error
                : new CacheOperationInvoker.ThrowableWrapper(error);
    }

    /**
     * This node's callers of one key's miss: the first ({@link #leader}) takes part in the miss across nodes, the
     * others wait for its {@link #outcome}: the value (stored in the node's cache by then), a {@link Failure}, or
     * {@link #RETRY} when the leader stopped waiting (its wait time, an interrupt) and a follower is to lead.
     */
    static final class Landing {

        static final Object RETRY = new Object();

        final Thread leader = Thread.currentThread();

        final CompletableFuture<Object> outcome = new CompletableFuture<>();

        /**
         * The leader's failure: the cause of its {@code ValueRetrievalException} (the loader's exception, as the cache
         * interceptor gave it), else what it threw.
         */
        record Failure(Throwable error) {
        }
    }
}
