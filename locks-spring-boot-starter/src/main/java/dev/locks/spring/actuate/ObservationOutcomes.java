package dev.locks.spring.actuate;

import dev.locks.LocksObserver;
import dev.locks.spring.interceptor.CallObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Puts the result of a wait for locks ({@code result}) and of a fetch-or-compute call ({@code outcome}) on the
 * observation of that call, as low-cardinality values with the meters' tags (acquired, timeout, hit, computed,
 * waited, ...), so that a trace tells a hit from a computation and a wait that got its locks from one that
 * timed out.
 *
 * <p>A {@link LocksObserver}: the registry and the cache report each call's result on the calling thread, inside
 * the observation's scope ({@link LocksObservations#observe}), where it is the registry's current observation. An
 * event with no such observation current (a direct call of the API, a sweep) tags nothing.
 */
public final class ObservationOutcomes implements LocksObserver {

    private final ObservationRegistry registry;

    public ObservationOutcomes(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onAcquire(AcquireResult result, long nanos) {
        tag(CallObservations.ACQUIRE, "result", result.tag());
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
