package dev.locks.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * A thread parked until a key it waits for is released, or its pause ends. One per (acquire, blocking
 * entry): the entry keeps it in a list that it drains when it leaves the table.
 */
final class Waiter {

    final Thread thread;
    /** The next waiter of the same entry; written before the waiter is published, never after. */
    Waiter next;
    private volatile boolean signalled;

    Waiter(Thread thread) {
        this.thread = thread;
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
