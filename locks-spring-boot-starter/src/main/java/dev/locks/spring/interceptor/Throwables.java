package dev.locks.spring.interceptor;

/** Rethrows any throwable, checked ones included, without wrapping it. */
final class Throwables {

    private Throwables() {
    }

    /**
     * Throws {@code ex} as it is. Declared to return an exception so that callers can write
     * {@code throw sneaky(ex)}; it never returns.
     */
    @SuppressWarnings("unchecked")
    static <E extends Throwable> E sneaky(Throwable ex) throws E {
        throw (E) ex;
    }
}
