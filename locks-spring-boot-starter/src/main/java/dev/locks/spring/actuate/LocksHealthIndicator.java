package dev.locks.spring.actuate;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code locks} health contributor: {@code UP} with the details {@code backend}, {@code held} (the keys
 * this node holds, a counter), {@code stale} (the stale locks the last sweep removed) and {@code computations}
 * (this node's computations in flight) whenever the backend answers.
 *
 * <p>A health check costs one {@linkplain LocksBackendPing ping} of the backend (one round trip; on a Redis
 * Cluster a {@code PING} per master and one {@code CLUSTER INFO}), whatever the number of locks or keys: it
 * never lists or scans them (load balancers and Kubernetes probe
 * health every few seconds, unauthenticated). It goes {@code DOWN} only when the backend cannot be reached
 * (the ping fails), never because locks are contended or stale: a busy application is a healthy one, and
 * must stay in its load balancer.
 */
public class LocksHealthIndicator extends AbstractHealthIndicator {

    private final LockRegistry registry;

    private final @Nullable ComputeCache cache;

    private final LocksBackendPing ping;

    private final LastSweep lastSweep;

    /**
     * @param cache the compute cache, or {@code null} when the application has none
     * @param ping one round trip to the backend; {@link LocksBackendPing#NONE} for an in-memory one
     * @param lastSweep what the last sweep removed
     */
    public LocksHealthIndicator(LockRegistry registry, @Nullable ComputeCache cache, LocksBackendPing ping,
            LastSweep lastSweep) {
        super("Locks health check failed: the backend cannot be reached");
        this.registry = registry;
        this.cache = cache;
        this.ping = ping;
        this.lastSweep = lastSweep;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("backend", registry.backend());
        ping.ping();
        builder.up()
                .withDetail("held", registry.heldCount())
                .withDetail("stale", lastSweep.removed())
                .withDetail("computations", (cache != null) ? cache.inFlightCount() : 0);
    }
}
