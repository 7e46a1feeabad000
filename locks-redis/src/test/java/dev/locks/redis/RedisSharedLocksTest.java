package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LockRegistry;
import dev.locks.contract.SharedLocksNodesContract;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** SPEC 13 across two nodes on one Redis server, each on its own connection factory. */
class RedisSharedLocksTest extends SharedLocksNodesContract {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Override
    protected LockRegistry newNode(boolean watchdog) {
        return RedisLockRegistry.builder(redis.newConnectionFactory()).cleanupInterval(Duration.ZERO)
                .watchdog(watchdog).build();
    }

    /** No lock, holder or queue key: only the fencing counter. */
    @Override
    protected void assertNothingLeftBehind() {
        assertThat(((List<?>) redis.server().command("KEYS", "*")).stream().map(Object::toString)).containsOnly("locks:fencing");
    }
}
