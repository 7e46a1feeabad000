package dev.locks.spring.actuate;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/** A compute cache double for the operations tests: it shows whatever computations a test puts in it. */
final class StubComputeCache implements ComputeCache {

    private final List<Computation> computations = new CopyOnWriteArrayList<>();

    StubComputeCache with(Computation computation) {
        computations.add(computation);
        return this;
    }

    @Override
    public List<Computation> computations() {
        return List.copyOf(computations);
    }

    @Override
    public String backend() {
        return "stub";
    }

    @Override
    public <V> V fetchOrCompute(String key, Duration ttl, Supplier<V> compute) {
        return compute.get();
    }

    @Override
    public ComputeOutcome begin(String key, Duration ttl, String hint) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean complete(ComputeTicket ticket, Object value, Duration ttl) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean fail(ComputeTicket ticket, Throwable error) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void invalidate(String key) {
    }
}
