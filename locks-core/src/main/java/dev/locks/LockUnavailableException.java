package dev.locks;

/**
 * The backend could not be reached (a Redis outage, say): distinct from a timeout, which means the backend
 * answered that someone else holds the keys. Nothing was acquired.
 */
public class LockUnavailableException extends LocksException {

    private static final long serialVersionUID = 1L;

    public LockUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
