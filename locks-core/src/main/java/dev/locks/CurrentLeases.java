package dev.locks;

import java.util.ArrayDeque;
import java.util.Optional;

/**
 * The stack of leases of the running {@code @Locked} methods and {@code withLocks} actions on each thread,
 * behind {@link Lease#current()} and {@link Lease#makeCurrent(Lease)}.
 */
final class CurrentLeases {

    private static final ThreadLocal<ArrayDeque<Lease>> STACK = ThreadLocal.withInitial(ArrayDeque::new);

    private CurrentLeases() {
    }

    /** The innermost lease on this thread. */
    static Optional<Lease> get() {
        return Optional.ofNullable(STACK.get().peek());
    }

    /**
     * Makes {@code lease} the current one until the returned scope is closed, on this same thread. The
     * thread's (small) stack stays allocated when it empties: building it again on every call of a
     * {@code @Locked} method cost more than the lock.
     */
    static Lease.CurrentScope enter(Lease lease) {
        ArrayDeque<Lease> stack = STACK.get();
        stack.push(lease);
        return () -> stack.removeFirstOccurrence(lease);
    }
}
