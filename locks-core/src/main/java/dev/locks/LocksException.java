package dev.locks;

/** The root of the exceptions this library throws of its own. */
public abstract class LocksException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    protected LocksException(String message) {
        super(message);
    }

    protected LocksException(String message, Throwable cause) {
        super(message, cause);
    }
}
