package dev.locks.redis;

import io.lettuce.core.cluster.RedisClusterClient;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Refreshes a Lettuce Redis Cluster client's view of the cluster (which master serves which slot) after a store
 * command failed, at most once per {@value #MIN_INTERVAL_MILLIS} ms and never two at once, in the background.
 *
 * <p>Why: after a master dies, its replica is promoted by the cluster, but the client keeps sending that shard's
 * commands to the dead master until its own view changes, which Lettuce does only on its periodic refresh (none
 * unless configured; Spring Boot's {@code spring.data.redis.lettuce.cluster.refresh.period}) or on an adaptive
 * trigger (off unless configured, and then at most once per {@code adaptiveRefreshTriggersTimeout}, 30 s by default,
 * which failures before the promotion may have used up). A dead master answers no {@code MOVED} that could tell
 * it; without either, only the release subscription's once-a-second check of its connections refreshes it, and
 * with release notices off nothing does: the shard's keys stayed unavailable (RedisClusterViewRefreshTest). Traced
 * under load (RedisClusterKillUnderLoadTest), with the subscription's check, the shard's keys came back 0.65-0.91 s
 * after the promotion; refreshed after each failure, the view followed the promotion within 61-175 ms, and the
 * keys within 0.32 s.
 *
 * <p>A failure is what triggers it, so a healthy cluster costs nothing; during an outage each node sends Lettuce's
 * refresh (a {@code CLUSTER NODES} per known node) at most {@value #REFRESH_PER_SECOND} times a second.
 */
final class ClusterViewRefresh {

    private static final System.Logger LOG = System.getLogger(ClusterViewRefresh.class.getName());
    static final long MIN_INTERVAL_MILLIS = 200;
    private static final long REFRESH_PER_SECOND = 1_000 / MIN_INTERVAL_MILLIS;

    private final RedisClusterClient client;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong startedAt = new AtomicLong(System.nanoTime() - MIN_INTERVAL_MILLIS * 1_000_000);

    private ClusterViewRefresh(RedisClusterClient client) {
        this.client = client;
    }

    /**
     * For the cluster client behind {@code factory}: only for a Lettuce one on a Redis Cluster
     * ({@link ClusterSlots#shardedPubSub}), since this class needs Lettuce.
     */
    static ClusterViewRefresh of(RedisConnectionFactory factory) {
        return new ClusterViewRefresh((RedisClusterClient) ((LettuceConnectionFactory) factory).getRequiredNativeClient());
    }

    /** A command failed: refreshes the view in the background, unless one ran lately or runs now. */
    void afterFailure() {
        long now = System.nanoTime();
        long last = startedAt.get();
        if (now - last < MIN_INTERVAL_MILLIS * 1_000_000 || !running.compareAndSet(false, true)) {
            return;
        }
        if (!startedAt.compareAndSet(last, now)) {
            running.set(false);
            return;
        }
        try {
            client.refreshPartitionsAsync().whenComplete((done, failed) -> {
                running.set(false);
                if (failed != null) {
                    LOG.log(Level.DEBUG, "could not refresh the Redis Cluster client's view of the cluster", failed);
                }
            });
        } catch (RuntimeException e) { // the client shut down
            running.set(false);
            LOG.log(Level.DEBUG, "could not refresh the Redis Cluster client's view of the cluster", e);
        }
    }
}
