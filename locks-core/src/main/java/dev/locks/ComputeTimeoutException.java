package dev.locks;

import java.time.Duration;

/**
 * A waiter's own wait time ran out before the computation it waited for ended. The computation goes on for
 * the others. Also what the caller of a reactive computation gets when it did not finish within its compute
 * timeout and was cancelled.
 */
public class ComputeTimeoutException extends LocksException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final Duration waited;

    public ComputeTimeoutException(String key, Duration waited) {
        super("Gave up waiting for the computation of '" + key + "' after " + waited.toMillis()
                + " ms (its wait time); the computation goes on for the other callers. Raise 'waitTime' to wait longer.");
        this.key = key;
        this.waited = waited;
    }

    /**
     * With a message of its own: for a computation that did not finish within {@code waited}, its compute timeout,
     * and was cancelled by its caller (a reactive one, whose computation holds no thread to finish on).
     */
    public ComputeTimeoutException(String key, Duration waited, String message) {
        super(message);
        this.key = key;
        this.waited = waited;
    }

    public String key() {
        return key;
    }

    public Duration waited() {
        return waited;
    }
}
