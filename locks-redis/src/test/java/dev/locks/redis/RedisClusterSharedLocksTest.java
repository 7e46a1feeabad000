package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LockRegistry;
import dev.locks.contract.SharedLocksNodesContract;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SPEC 13 across two nodes on a Redis Cluster of 3 masters, each node on its own connection factory: the keys
 * ({@code "config"}, {@code "q"}, {@code "tenant:7"}, ...) lie in slots of different masters.
 */
class RedisClusterSharedLocksTest extends SharedLocksNodesContract {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    @Override
    protected LockRegistry newNode(boolean watchdog) {
        return RedisLockRegistry.builder(redis.cluster().newConnectionFactory()).cleanupInterval(Duration.ZERO)
                .watchdog(watchdog).build();
    }

    /** No lock, holder or queue key on any master: only the slots' fencing counters. */
    @Override
    protected void assertNothingLeftBehind() {
        List<String> keys = new ArrayList<>();
        for (int port : redis.cluster().masterPorts()) {
            for (Object key : (List<?>) redis.cluster().command(port, "KEYS", "*")) {
                keys.add(key.toString());
            }
        }
        assertThat(keys).allMatch(key -> key.startsWith("locks:fencing"));
    }
}
