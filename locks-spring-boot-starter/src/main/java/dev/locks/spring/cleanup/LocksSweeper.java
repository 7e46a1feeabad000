package dev.locks.spring.cleanup;

import dev.locks.LockRegistry;
import dev.locks.LockUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Removes stale locks every {@code locks.cleanup.interval} (default 5 minutes), the first time one interval
 * after startup. Acquirers remove the stale locks they meet anyway; the sweeper frees the others, so that
 * operations (the endpoint, the {@code locks.held} gauge) do not show dead owners' locks for long.
 *
 * <p>Scheduling: when the application enables scheduling itself ({@code @EnableScheduling}), its scheduler
 * runs this method like any other {@code @Scheduled} method. Otherwise the starter schedules this bean alone,
 * on a single daemon thread of its own named {@code locks-sweeper}, and starts none of the application's
 * {@code @Scheduled} methods. {@code locks.cleanup.enabled=false} removes the sweeper.
 */
public class LocksSweeper {

    private static final Log logger = LogFactory.getLog(LocksSweeper.class);

    private final LockRegistry registry;

    public LocksSweeper(LockRegistry registry) {
        this.registry = registry;
    }

    /** One sweep: removes the stale locks, in batches of {@code locks.cleanup.batch-size}. */
    @Scheduled(fixedDelayString = "${locks.cleanup.interval:5m}", initialDelayString = "${locks.cleanup.interval:5m}")
    public void sweep() {
        try {
            int removed = registry.sweep();
            if (removed > 0 && logger.isDebugEnabled()) {
                logger.debug("Removed " + removed + " stale lock(s)");
            }
        }
        catch (LockUnavailableException ex) {
            logger.warn("Could not sweep stale locks, the backend cannot be reached; trying again next interval: "
                    + ex.getMessage());
        }
    }
}
