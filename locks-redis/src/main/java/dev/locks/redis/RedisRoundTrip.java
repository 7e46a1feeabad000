package dev.locks.redis;

import java.util.function.Supplier;

/**
 * Every Redis round trip of the backend, immune to the calling thread's interrupt status (SPEC section 3,
 * "Interrupts"): Lettuce fails a command with "Redis command interrupted" when the thread that waits for its
 * reply is interrupted, before or during the wait. A round trip runs with the status cleared, and the status
 * is restored afterwards, so an interrupted thread still takes free keys, releases them, and stores the value
 * it computed; the engine then sees the status and stops waiting where it would have to wait.
 *
 * <p>An interrupt that arrives while the reply is awaited still makes Lettuce give the command up. A command
 * that is safe to send again is then sent again (a few times at most), after {@code beforeRepeat} has undone
 * whatever the abandoned one may still do; others fail as before.
 */
final class RedisRoundTrip {

    /** How many times a command given up because of an interrupt is sent in all. */
    private static final int SENDS = 3;

    private RedisRoundTrip() {
    }

    /** Runs {@code command} with the interrupt status cleared, then restores it. */
    static <T> T call(Supplier<T> command) {
        return call(command, null);
    }

    /** Runs {@code command} with the interrupt status cleared and sends it again if an interrupt cut it off. */
    static <T> T repeatable(Supplier<T> command) {
        return call(command, () -> { });
    }

    /**
     * Runs {@code command} with the interrupt status cleared, then restores it.
     *
     * @param beforeRepeat run before the command is sent again because an interrupt cut the last one off;
     *        {@code null} when it must not be sent again
     */
    static <T> T call(Supplier<T> command, Runnable beforeRepeat) {
        boolean interrupted = Thread.interrupted();
        try {
            for (int send = 1; ; send++) {
                try {
                    return command.get();
                } catch (RuntimeException e) {
                    boolean cutOff = Thread.interrupted();
                    interrupted |= cutOff;
                    if (!cutOff || beforeRepeat == null || send == SENDS) {
                        throw e;
                    }
                    beforeRepeat.run();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
