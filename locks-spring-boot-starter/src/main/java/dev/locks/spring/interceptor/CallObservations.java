package dev.locks.spring.interceptor;

/**
 * Wraps each annotated call's wait for locks ({@value #ACQUIRE}) and each computation ({@value #COMPUTE}), so
 * that tracing shows them: the starter's Micrometer Observations, when the application has an
 * {@code ObservationRegistry} ({@code dev.locks.spring.actuate.LocksObservationAutoConfiguration}); else
 * {@link #NONE}, which only runs the call.
 */
public interface CallObservations {

    /** The name of the observation of a wait for locks. */
    String ACQUIRE = "locks.acquire";

    /** The name of the observation of a fetch-or-compute call. */
    String COMPUTE = "locks.compute";

    /** Observes nothing. */
    CallObservations NONE = new CallObservations() {
        @Override
        public <T> T observe(String observation, String name, String backend, Call<T> call) throws Throwable {
            return call.run();
        }
    };

    /**
     * Runs {@code call} as the observation {@code observation}, with the low-cardinality values {@code name} (the
     * annotated method's) and {@code backend}; rethrows what the call throws, as is.
     */
    <T> T observe(String observation, String name, String backend, Call<T> call) throws Throwable;

    /**
     * Starts the observation {@code observation} of a call that ends later, maybe on another thread (a reactive
     * one): the returned {@link Stop} ends it. By default observes nothing.
     */
    default Stop start(String observation, String name, String backend) {
        return Stop.NONE;
    }

    /** Ends an observation that {@link #start} began. */
    @FunctionalInterface
    interface Stop {

        /** Ends nothing. */
        Stop NONE = error -> {
        };

        /**
         * Adds the low-cardinality value {@code key} = {@code value} (the call's {@code outcome}, say) to the
         * observation before it ends. By default adds nothing.
         */
        default void tag(String key, String value) {
        }

        /** Ends the observation, with the error the call ended with, or {@code null} when it ended normally. */
        void stop(Throwable error);
    }

    /** A call that may throw anything. */
    @FunctionalInterface
    interface Call<T> {

        T run() throws Throwable;
    }
}
