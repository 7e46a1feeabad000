package dev.locks;

import java.time.Duration;

/**
 * A waiter's own wait time ran out before the computation it waited for ended. The computation goes on for
 * the others.
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

    public String key() {
        return key;
    }

    public Duration waited() {
        return waited;
    }
}
