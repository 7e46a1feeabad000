package dev.locks;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A held set of locks, and the token of their ownership.
 *
 * <p>{@link #close()} releases; it may be called from any thread, is idempotent, throws nothing and never
 * deletes a lock that now belongs to someone else. Each {@code acquire} needs its own {@code close()}; a
 * key stays held while any open lease of its thread includes it, so nested leases may be closed in any
 * order.
 */
public interface Lease extends AutoCloseable {

    /** The keys that the acquire asked for: sorted, without duplicates ({@code __global_lock__} for none). */
    List<String> keys();

    /**
     * A number greater than every token issued before for any of these keys. Pass it to storage that can
     * refuse writes carrying a lower token than it has seen, so that a holder whose lock expired cannot
     * overwrite its successor's work.
     */
    long fencingToken();

    /** When this lease was acquired. */
    Instant acquiredAt();

    /** When its locks turn stale unless renewed; {@link Instant#MAX} when they never expire. */
    Instant expiresAt();

    /**
     * Whether this lease still holds every one of its locks, as far as the registry has seen: false once
     * it was closed, or a lock was taken from it as stale, or it expired, or its renewal failed.
     */
    boolean isHeld();

    /** Releases the locks of this lease that no other open lease of its owner still holds. Idempotent. */
    @Override
    void close();

    /**
     * Unties this lease from its acquiring thread, for leases handed to asynchronous work: from now on only
     * its lock timeout makes it stale, and the acquiring thread no longer re-enters its locks.
     */
    default void detach() {
    }

    /**
     * The innermost lease of the running {@code @Locked} method or {@link LockRegistry#withLocks} action on
     * this thread, if any.
     */
    static Optional<Lease> current() {
        return CurrentLeases.get();
    }

    /**
     * Makes {@code lease} the {@linkplain #current() current} one on this thread until the returned scope is
     * closed, on this same thread: for integrations that run an action under a lease they acquired themselves
     * (the Spring Boot starter's {@code @Locked}, its reactive and coroutine calls). {@link LockRegistry#withLocks}
     * does it by itself.
     */
    static CurrentScope makeCurrent(Lease lease) {
        return CurrentLeases.enter(lease);
    }

    /** A lease's turn as the {@linkplain #current() current} one; closing it ends that turn. */
    @FunctionalInterface
    interface CurrentScope extends AutoCloseable {
        @Override
        void close();
    }
}
