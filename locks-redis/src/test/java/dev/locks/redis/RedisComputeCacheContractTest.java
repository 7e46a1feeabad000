package dev.locks.redis;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.contract.ComputeCacheContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis cache passes the same contract as the in-memory one. Another node is another cache on a
 * connection factory of its own. Time is the contract's manual clock on this JVM's side and, on the server's,
 * every key's remaining time shortened as the test lets time pass ({@link RedisComputeServerTime}); the server's
 * own clock runs on meanwhile, so the tests look at expiries {@link #precision()} early and late.
 */
class RedisComputeCacheContractTest extends ComputeCacheContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final List<RedisComputeCache> nodes = new CopyOnWriteArrayList<>();
    private RedisConnectionFactory peerFactory;

    @Override
    protected ComputeCache newCache(ComputeOptions defaults, LocksClock clock) {
        return node(redis.connectionFactory(), defaults, clock);
    }

    @Override
    protected ComputeCache newPeer(ComputeCache cache, ComputeOptions defaults, LocksClock clock) {
        if (peerFactory == null) {
            peerFactory = redis.newConnectionFactory(); // destroyed with the class's server
        }
        return node(peerFactory, defaults, clock);
    }

    @Override
    protected void elapse(Duration duration) {
        super.elapse(duration);
        RedisComputeServerTime.elapse(redis.server(), duration);
    }

    @Override
    protected Duration precision() {
        return Duration.ofMillis(200);
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(RedisComputeCache::close);
    }

    private RedisComputeCache node(RedisConnectionFactory factory, ComputeOptions defaults, LocksClock clock) {
        RedisComputeCache node = RedisComputeCache.builder(factory).defaultOptions(defaults).clock(clock).build();
        nodes.add(node);
        return node;
    }
}
