package dev.locks.internal;

/** What an attempt found in its way: a key held by someone else, which a waiter can wait for. */
interface Blocker {

    /** The key that is held. */
    String key();

    /**
     * Whether {@code waiter} is registered here since an earlier attempt and still waiting: it may park
     * again. A waiter is in one list at most, ever; any other must be replaced by a new one.
     */
    boolean isWaiting(Waiter waiter);

    /**
     * Registers {@code waiter} (a new one, or one {@link #isWaiting} here), to be signalled when the key is
     * released.
     *
     * @return false when it was released meanwhile: try again at once
     */
    boolean addWaiter(Waiter waiter);
}
