package dev.locks.spring;

import java.util.Locale;

/** {@code locks.backend} names a backend whose module is not on the classpath. */
public class MissingLocksBackendException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final LocksBackend backend;

    private final String missingClass;

    public MissingLocksBackendException(LocksBackend backend, String missingClass) {
        super("locks.backend=" + backend.name().toLowerCase(Locale.ROOT) + " but " + missingClass
                + " is not on the classpath: add the dependency dev.locks:locks-" + backend.name().toLowerCase(Locale.ROOT));
        this.backend = backend;
        this.missingClass = missingClass;
    }

    /** The backend asked for. */
    public LocksBackend backend() {
        return backend;
    }

    /** The class of the backend's module that was looked for. */
    public String missingClass() {
        return missingClass;
    }
}
