package dev.locks.redis;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.FreshValuesContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Section 11 on two nodes of one Redis server, each a cache on a connection factory of its own. Time passes on the
 * server by shortening every key's remaining time ({@link RedisComputeServerTime}): ages, stale windows and error
 * back-offs are all expiries there.
 */
class RedisFreshValuesContractTest extends FreshValuesContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected ComputeCache newNode(ComputeOptions defaults, LocksClock clock, LocksObserver observer,
            Duration errorBackoff, int refreshMaxConcurrent, ComputeCache first) {
        return RedisComputeCache.builder(first == null ? redis.connectionFactory() : redis.newConnectionFactory())
                .defaultOptions(defaults).clock(clock).observer(observer).errorBackoff(errorBackoff)
                .refreshMaxConcurrent(refreshMaxConcurrent).build();
    }

    @Override
    protected void elapse(Duration duration) {
        super.elapse(duration);
        RedisComputeServerTime.elapse(redis.server(), duration);
    }
}
