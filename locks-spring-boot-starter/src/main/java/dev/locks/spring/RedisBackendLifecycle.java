package dev.locks.spring;

import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.Phased;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Closes the Redis backend's beans while their connection factory still runs: the registry stops its
 * watchdog and releases this node's locks, so that other nodes need not wait for them to expire, and both
 * unsubscribe.
 *
 * <p>Destroying the beans would be too late: Spring Data Redis's connection factories are
 * {@link SmartLifecycle} beans of phase 0, which a closing context stops before it destroys any bean. This
 * one stops in the phase just above the factory's, so after everything of a higher phase that may still hold
 * locks (the web server and its requests under graceful shutdown, message listeners, schedulers) and before
 * the factory. A context stopped this way cannot be started again with the same backend beans. A failure to
 * release is logged, and those locks expire after their lock timeout.
 */
final class RedisBackendLifecycle implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RedisBackendLifecycle.class);

    private final List<AutoCloseable> backend;

    private final int phase;

    private volatile boolean running;

    /** @param backend what to close, in order (the registry first) */
    RedisBackendLifecycle(List<AutoCloseable> backend, RedisConnectionFactory connectionFactory) {
        this.backend = List.copyOf(backend);
        this.phase = phaseBefore(connectionFactory);
    }

    /** The phase just above the factory's (stopped earlier), or 0 when the factory has no phase. */
    static int phaseBefore(RedisConnectionFactory connectionFactory) {
        if (connectionFactory instanceof Phased phased) {
            return (phased.getPhase() == Integer.MAX_VALUE) ? Integer.MAX_VALUE : phased.getPhase() + 1;
        }
        return 0;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        for (AutoCloseable closeable : backend) {
            try {
                closeable.close();
            }
            catch (Exception ex) {
                logger.warn("Could not close " + closeable + " of the Redis locks backend; its locks in Redis expire"
                        + " after their lock timeout", ex);
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
