package dev.locks.spring.actuate;

import dev.locks.LockTimeoutException;
import dev.locks.spring.interceptor.CallObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * The Micrometer Observations of annotated calls: {@code locks.acquire} around each wait for locks,
 * {@code locks.compute} around each fetch-or-compute call (its body, when it computes, runs inside it, so its
 * own spans are children of it; for a {@code Mono} or a {@code suspend} function the observation runs from
 * subscription to the result's signal, {@link #start}, without being the scope of its body). Both carry the
 * low-cardinality values {@code name} and {@code backend}; a wait for locks its {@code result}
 * ({@code acquired}, {@code timeout}, {@code error}, or {@code skipped} for an {@code onTimeout = "skip"} call that
 * did not get its keys, which is no error), a fetch-or-compute call its {@code outcome} (hit, computed, waited,
 * failed, promoted, ...) as the meters have it: {@link ObservationOutcomes} adds it from the cache's events, and
 * {@link Stop#tag} for a reactive call. An exception is recorded as the observation's error and rethrown as is.
 * Handlers of the application's {@link ObservationRegistry} (Spring Boot's tracing, say) see them; the
 * {@code locks.*} meters are fed as before, by {@link LocksMetrics}.
 */
public final class LocksObservations implements CallObservations {

    private final ObservationRegistry registry;

    public LocksObservations(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public <T> T observe(String observation, String name, String backend, Call<T> call) throws Throwable {
        if (registry.isNoop()) {
            return call.run();
        }
        Observation started = Observation.createNotStarted(observation, registry)
                .lowCardinalityKeyValue("name", name)
                .lowCardinalityKeyValue("backend", backend)
                .start();
        boolean acquire = ACQUIRE.equals(observation);
        try (Observation.Scope scope = started.openScope()) {
            T result = call.run();
            if (acquire) { // the interceptor's acquire gives no lease when the call skips (onTimeout = "skip")
                started.lowCardinalityKeyValue("result", result == null ? "skipped" : "acquired");
            }
            return result;
        }
        catch (Throwable ex) {
            if (acquire) {
                started.lowCardinalityKeyValue("result", ex instanceof LockTimeoutException ? "timeout" : "error");
            }
            started.error(ex);
            throw ex;
        }
        finally {
            started.stop();
        }
    }

    @Override
    public Stop start(String observation, String name, String backend) {
        if (registry.isNoop()) {
            return Stop.NONE;
        }
        Observation started = Observation.createNotStarted(observation, registry)
                .lowCardinalityKeyValue("name", name)
                .lowCardinalityKeyValue("backend", backend)
                .start();
        return new Stop() {
            @Override
            public void tag(String key, String value) {
                started.lowCardinalityKeyValue(key, value);
            }

            @Override
            public void stop(Throwable error) {
                if (error != null) {
                    started.error(error);
                }
                started.stop();
            }
        };
    }
}
