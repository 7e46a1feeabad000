package dev.locks.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * A thread parked until a key it waits for is released, or its pause ends. It sits in one list (of a
 * blocking entry, or of a key held on another node) until that list is drained, which signals it; an
 * acquire that is blocked by the same key again re-parks on the same waiter instead of adding another.
 */
final class Waiter {

    final Thread thread;
    /** The key it waits for. */
    final String key;
    /** The next waiter of the same entry; written before the waiter is published, never after. */
    Waiter next;
    /** The list it was added to; read and written by its own thread only. */
    Object list;
    private volatile boolean signalled;

    Waiter(Thread thread, String key) {
        this.thread = thread;
        this.key = key;
    }

    boolean isSignalled() {
        return signalled;
    }

    void signal() {
        signalled = true;
        LockSupport.unpark(thread);
    }

    /**
     * Parks until signalled or {@code nanos} have passed (real time). Permits left over from earlier
     * registrations do not end the wait early; an interrupt does not either, and stays set.
     *
     * @return whether the thread was interrupted meanwhile (the caller restores the flag)
     */
    boolean await(long nanos) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + nanos;
        while (!signalled) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        return interrupted;
    }
}
