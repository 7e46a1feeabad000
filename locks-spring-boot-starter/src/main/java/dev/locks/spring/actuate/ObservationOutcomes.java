package dev.locks.spring.actuate;

import dev.locks.LocksObserver;
import dev.locks.spring.interceptor.CallObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Puts the outcome of a fetch-or-compute call ({@code outcome}) on the observation of that call, as a
 * low-cardinality value with the meter's tag (hit, computed, waited, ...), so that a trace tells a hit from a
 * computation. (The {@code result} of a wait for locks is the interceptor's to know, {@link LocksObservations}.)
 *
 * <p>A {@link LocksObserver}: the cache reports each call's outcome on the calling thread, inside
 * the observation's scope ({@link LocksObservations#observe}), where it is the registry's current observation. An
 * event with no such observation current (a direct call of the API, a sweep) tags nothing.
 */
public final class ObservationOutcomes implements LocksObserver {

    private final ObservationRegistry registry;

    public ObservationOutcomes(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onCompute(ComputeResult result, long nanos) {
        if (result != ComputeResult.UNREADABLE) { // counted beside the call's own outcome, which follows it
            tag(CallObservations.COMPUTE, "outcome", result.tag());
        }
    }

    private void tag(String observation, String key, String value) {
        Observation current = registry.getCurrentObservation();
        if (current != null && observation.equals(current.getContext().getName())) {
            current.lowCardinalityKeyValue(key, value);
        }
    }
}
