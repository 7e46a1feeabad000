package dev.locks.spring.actuate;

import dev.locks.ComputeCache;
import dev.locks.HeldLock;
import dev.locks.LockRegistry;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code locks} health contributor: {@code UP} with the details {@code backend}, {@code held},
 * {@code stale} and {@code computations} whenever the backend answers.
 *
 * <p>It goes {@code DOWN} only when the backend cannot be reached (a
 * {@link dev.locks.LockUnavailableException} or any other failure of the backend), never because locks
 * are contended or stale: a busy application is a healthy one, and must stay in its load balancer.
 */
public class LocksHealthIndicator extends AbstractHealthIndicator {

    private final LockRegistry registry;

    private final @Nullable ComputeCache cache;

    /** @param cache the compute cache, or {@code null} when the application has none */
    public LocksHealthIndicator(LockRegistry registry, @Nullable ComputeCache cache) {
        super("Locks health check failed: the backend cannot be reached");
        this.registry = registry;
        this.cache = cache;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("backend", registry.backend());
        List<HeldLock> held = registry.heldLocks();
        long stale = held.stream().filter(HeldLock::stale).count();
        int computations = (cache != null) ? cache.inFlightCount() : 0;
        builder.up()
                .withDetail("held", held.size())
                .withDetail("stale", stale)
                .withDetail("computations", computations);
    }
}
