package dev.locks.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * A thread parked until a key it waits for is released, or its pause ends. It sits in one list (of a
 * blocking entry, or of a key held on another node) until that list is drained, which signals it. It is
 * never added to a second list: its link belongs to the first, and relinking it would cut that list short or
 * close it into a cycle. An acquire blocked again by the same list re-parks on the same waiter; blocked by
 * any other, it takes a new one.
 */
final class Waiter {

    final Thread thread;
    /** The next waiter of the same entry; written before the waiter is published, never after. */
    Waiter next;
    /** The list it was added to; read and written by its own thread only. */
    Object list;
    private volatile boolean signalled;

    Waiter(Thread thread) {
        this.thread = thread;
    }

    /** Guards the one-list rule: a waiter already in a list must never be linked into another. */
    void requireUnlisted() {
        if (list != null) {
            throw new IllegalStateException("a waiter is in one wait list at most");
        }
    }

    boolean isSignalled() {
        return signalled;
    }

    void signal() {
        signalled = true;
        LockSupport.unpark(thread);
    }

    /**
     * Parks until signalled, interrupted or {@code nanos} have passed (real time). Permits left over from
     * earlier registrations do not end the wait early. The interrupt status is left as it is: the caller
     * checks it and stops waiting.
     *
     * @return whether the thread is interrupted
     */
    boolean await(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!signalled && !thread.isInterrupted()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            LockSupport.parkNanos(this, left);
        }
        return thread.isInterrupted();
    }
}
