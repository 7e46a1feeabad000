package dev.locks.support;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A {@link ComputeCache} whose calls can wait without a thread: a caller waiting for another caller's computation
 * is a callback, woken by the same settlement, promotion and wait time as a blocked caller, and a computation may
 * itself be asynchronous. Every cache built on {@link AbstractComputeCache} is one. The Spring Boot starter's
 * {@code @FetchOrCompute} on a {@code Mono} or a Kotlin {@code suspend} function waits through it, and holds a thread
 * of its own wait pool only for a cache that is not one.
 *
 * <p>For both methods:
 * <ul>
 *   <li>bad arguments or a closed cache complete the future exceptionally; the methods never throw;</li>
 *   <li>dependent stages run on the cache's own threads (or on the calling thread when the future is complete
 *       before the method returns), never on a backend client's I/O thread;</li>
 *   <li>cancelling the future while the caller waits makes it leave the wait: the computation goes on for the
 *       others, and nothing is left behind; a turn to compute given at that moment goes to the next waiter;</li>
 *   <li>closing the cache completes pending futures with an {@link IllegalStateException}.</li>
 * </ul>
 */
public interface AsyncComputeCache extends ComputeCache {

    /**
     * {@link ComputeCache#begin(String, ComputeOptions, String)} without a thread: the future completes with what
     * {@code begin} returns, or exceptionally with what it throws (a {@link dev.locks.ComputeTimeoutException} when
     * the caller's own wait time ran out).
     *
     * @param hint what this caller passes on, should it compute and later be replaced
     */
    CompletableFuture<ComputeOutcome> beginAsync(String key, ComputeOptions options, String hint);

    /**
     * {@link ComputeCache#fetchOrCompute(String, ComputeOptions, Supplier)} without a thread, for a computation that
     * is itself asynchronous: on a miss the caller with the turn calls {@code compute} and the miss ends with the
     * stage's result (stored first, and received by every waiter) or its failure (received by every waiter, stored
     * nowhere). With refresh-ahead or stale-if-error, a due value starts a background refresh, which waits for the
     * stage on the cache's refresh threads, and a stale value is served instead of a failure, as the blocking call
     * does. A computation, once started, ends the miss even if its caller cancelled meanwhile.
     */
    <V> CompletableFuture<V> fetchOrComputeAsync(String key, ComputeOptions options,
            Supplier<? extends CompletionStage<V>> compute);
}
