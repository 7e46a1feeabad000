package dev.locks;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Keyed locks, taken all-or-nothing.
 *
 * <p>Keys are acquired in natural {@code String} order, so that two callers asking for the same keys in
 * any order can never deadlock, and never half-acquired: {@link #acquire} either holds every key or
 * holds none. An empty key collection means the global lock {@value #GLOBAL_LOCK_KEY}, which conflicts
 * only with other acquisitions of the global lock. Duplicate keys count once. A {@code null}, empty or
 * blank key is an {@link IllegalArgumentException} naming its 0-based position.
 *
 * <p>Locks are re-entrant per thread, and the returned {@link Lease} is the ownership token: only
 * closing it releases, from any thread, and never a lock that now belongs to someone else.
 *
 * <p>Methods beyond those of the product contract have default implementations, so that an application
 * can implement this interface (a test double, say) with the contract's methods alone.
 */
public interface LockRegistry {

    /** The key that an empty key collection locks. */
    String GLOBAL_LOCK_KEY = "__global_lock__";

    /**
     * Acquires every key with {@link #defaultOptions()}.
     *
     * @throws LockTimeoutException if the keys could not all be taken within the retries or wait time
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws java.util.concurrent.CancellationException if the thread is or becomes interrupted when it
     *         would have to wait (see {@link #acquire(Collection, AcquireOptions)})
     */
    Lease acquire(Collection<String> keys);

    /**
     * Acquires every key, trying again as {@code options} allow. Returns only when every key is held.
     *
     * <p>The first attempt is always made, whatever the thread's interrupt status: an interrupted thread
     * still takes free keys, and no round trip to the backend fails because of the status. A thread that is
     * interrupted, or becomes interrupted, when it would have to wait stops waiting at once.
     *
     * @throws LockTimeoutException if the keys could not all be taken within the retries or wait time;
     *         nothing stays locked
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws java.util.concurrent.CancellationException if the thread is or becomes interrupted when it
     *         would have to wait; its interrupt status stays set, nothing stays locked
     * @throws IllegalArgumentException for an invalid key (null, blank, longer than the registry's key length
     *         limit, or not well-formed UTF-16), more distinct keys than the registry's limit, or a retry
     *         interval function that returns a negative or {@code null} pause
     */
    Lease acquire(Collection<String> keys, AcquireOptions options);

    /**
     * Acquires every key as {@link #acquire(Collection, AcquireOptions)} does (all-or-nothing, in sorted order, with
     * fencing, fairness, the key limits, retries and wait time), but without a thread: a waiting call is a callback
     * in the same wait queues, woken by the same releases and release notifications, its pauses and deadline on
     * one timer of the registry, so that ten thousand pending acquisitions cost memory, not threads.
     *
     * <p>Never throws: the future completes with the lease, or exceptionally with {@link LockTimeoutException},
     * {@link LockUnavailableException}, or {@link IllegalArgumentException} for bad keys or options (before anything
     * is locked). Cancelling the future (or completing it from outside) stops the wait and leaves nothing held: a
     * lease taken at that moment is closed at once. The future is completed on a small thread pool of the
     * registry, never on a backend client's I/O thread; dependent stages that are not {@code ...Async} run there
     * too, so hand long or blocking work to an executor of your own.
     *
     * <p>The lease is tied to no thread: not re-entrant (a key the calling thread holds counts as held), closable
     * from any thread, and renewed by the watchdog like any lease until it is closed.
     */
    CompletableFuture<Lease> acquireAsync(Collection<String> keys, AcquireOptions options);

    /**
     * Makes one attempt and never waits: the lease, or empty when some key is held by someone else. The
     * thread's interrupt status is ignored (and kept).
     */
    Optional<Lease> tryAcquire(Collection<String> keys);

    /**
     * Makes one attempt under {@code options} (their lock timeout, {@code holdAtLeast}, ...; retries and wait
     * time play no part) and never waits: the lease, or empty when some key is held by someone else. The
     * thread's interrupt status is ignored (and kept).
     *
     * @throws IllegalArgumentException as {@link #acquire(Collection, AcquireOptions)} for keys it refuses
     */
    Optional<Lease> tryAcquire(Collection<String> keys, AcquireOptions options);

    /**
     * Acquires the keys with {@link #defaultOptions()}, runs {@code action}, releases, and returns what the
     * action returned. Whatever the action throws is rethrown as is, after the release. Inside the action,
     * {@link Lease#current()} is the lease.
     */
    <T> T withLocks(Collection<String> keys, Supplier<T> action);

    /** The options {@link #acquire(Collection)} uses: from {@code locks.*} under the Spring Boot starter. */
    AcquireOptions defaultOptions();

    /** A snapshot of the locks held now, one entry a key, for operations (the actuator endpoint). */
    List<HeldLock> heldLocks();

    /**
     * Removes the stale locks (dead owner, or held past their lock timeout), walking the table in batches
     * without stopping acquirers.
     *
     * @return how many locks were removed
     */
    int sweep();

    /**
     * At most {@code limit} of the locks held now, sorted by key, for a listing that must stay bounded (the
     * actuator endpoint). Which locks are listed when more are held is up to the backend (the first it finds);
     * the built-in backends stop reading once they have {@code limit}, so that the cost follows the limit and
     * not the number of locks.
     *
     * @throws IllegalArgumentException when {@code limit} is negative
     */
    default List<HeldLock> heldLocks(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
        List<HeldLock> held = heldLocks();
        return held.size() <= limit ? held : held.subList(0, limit);
    }

    /** The lock held on {@code key} now, if any. */
    default Optional<HeldLock> heldLock(String key) {
        return heldLocks().stream().filter(lock -> lock.key().equals(key)).findFirst();
    }

    /** How many keys are held now; cheaper than {@code heldLocks().size()} where the backend can. */
    default int heldCount() {
        return heldLocks().size();
    }

    /**
     * Releases {@code key} whoever holds it (an operator's last resort: its holder's lease turns lost).
     *
     * @return whether a lock was removed
     * @throws UnsupportedOperationException where the registry does not support it
     */
    default boolean forceRelease(String key) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support forceRelease");
    }

    /** A short name of the backend ({@code local}, {@code redis}), for the endpoint, health and metrics. */
    default String backend() {
        return "custom";
    }
}
