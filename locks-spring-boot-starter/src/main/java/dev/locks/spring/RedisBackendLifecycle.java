package dev.locks.spring;

import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.Phased;
import org.springframework.context.event.ContextClosedEvent;
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
 * the factory. A failure to release is logged, and those locks expire after their lock timeout.
 *
 * <p>Only a context that closes closes the backend: a {@code stop()} or {@code pause()} that is not part of a
 * close (Spring Framework 7's test context cache pauses the contexts it keeps, and restarts them when a test
 * needs them again) leaves the beans open, so that after {@code start()} or {@code restart()} they work as
 * before. The close is known from the {@link ContextClosedEvent} of this bean's own context, which a closing
 * context publishes before it stops its lifecycle beans.
 */
final class RedisBackendLifecycle implements SmartLifecycle, ApplicationListener<ContextClosedEvent>,
        ApplicationContextAware {

    private static final Log logger = LogFactory.getLog(RedisBackendLifecycle.class);

    private final List<AutoCloseable> backend;

    private final List<Runnable> resubscribe;

    private final int phase;

    private volatile boolean running;

    private volatile boolean closing;

    private volatile boolean stopped;

    private ApplicationContext context;

    /**
     * @param backend what to close, in order (the registry first)
     * @param resubscribe what to run when the context starts again after a stop or pause: the factory, stopped
     *        with it, has ended the backend's subscriptions silently
     */
    RedisBackendLifecycle(List<AutoCloseable> backend, List<Runnable> resubscribe,
            RedisConnectionFactory connectionFactory) {
        this.backend = List.copyOf(backend);
        this.resubscribe = List.copyOf(resubscribe);
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
        if (stopped) {
            stopped = false;
            resubscribe.forEach(Runnable::run);
        }
        running = true;
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    /** The close of this bean's own context (a child context's close reaches its parent's listeners too). */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() == context) {
            closing = true;
        }
    }

    /** Closes the backend when the context closes; a stop or pause of a context that stays open keeps it. */
    @Override
    public void stop() {
        running = false;
        if (!closing) {
            stopped = true;
            return;
        }
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
