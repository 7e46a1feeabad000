package dev.locks.redis;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.FreshValuesContract;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Section 11 on two nodes of a Redis Cluster of 3 masters: a key's write time, stale copy and back-off share its
 * value's slot, so the scripts that read and write them run on one shard. Time passes on every master.
 */
class RedisClusterFreshValuesContractTest extends FreshValuesContract {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, LocksClock clock, LocksObserver observer,
            Duration errorBackoff, int refreshMaxConcurrent, ComputeCache first) {
        return RedisComputeCache.builder(first == null ? redis.connectionFactory()
                        : redis.cluster().newConnectionFactory())
                .defaultOptions(defaults).clock(clock).observer(observer).errorBackoff(errorBackoff)
                .refreshMaxConcurrent(refreshMaxConcurrent).build();
    }

    @Override
    protected void elapse(Duration duration) {
        super.elapse(duration);
        for (int port : redis.cluster().masterPorts()) {
            RedisComputeServerTime.elapse(port, duration);
        }
    }
}
