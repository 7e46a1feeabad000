package dev.locks.internal;

/** What an attempt found in its way: a key held by someone else, which a waiter can wait for. */
interface Blocker {

    /** The key that is held. */
    String key();

    /**
     * Registers {@code waiter}, to be signalled when the key is released.
     *
     * @return false when it was released meanwhile: try again at once
     */
    boolean addWaiter(Waiter waiter);
}
