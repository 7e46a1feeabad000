package dev.locks.spring.actuate;

/**
 * One round trip to the backend of the locks, for the {@code locks} health contributor: returns when the
 * backend answered, throws when it cannot be reached. The local backend has nothing to reach
 * ({@link #NONE}); the starter defines one for Redis (a {@code PING} on the lock server's connection factory).
 * An application with a backend of its own may define a bean of this type.
 */
@FunctionalInterface
public interface LocksBackendPing {

    /** Nothing to reach: an in-memory backend. */
    LocksBackendPing NONE = () -> {
    };

    /**
     * One round trip.
     *
     * @throws RuntimeException when the backend cannot be reached
     */
    void ping();
}
