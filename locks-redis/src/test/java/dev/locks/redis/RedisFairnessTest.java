package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.contract.Starvation;
import dev.locks.contract.Threads;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SPEC "No starvation" and "Nothing left behind" across nodes on Redis: two registries, each on its own
 * connection factory, as two nodes.
 */
class RedisFairnessTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final List<RedisLockRegistry> nodes = new ArrayList<>();
    private final Threads threads = new Threads();

    @AfterEach
    void close() {
        threads.close();
        nodes.forEach(RedisLockRegistry::close);
    }

    private RedisLockRegistry node() {
        RedisLockRegistry node = RedisLockRegistry.builder(redis.newConnectionFactory())
                .cleanupInterval(Duration.ZERO).build();
        nodes.add(node);
        return node;
    }

    @Test
    void threeKeyWaiterShouldGetItsKeysAgainstOneKeyStreamsOnTwoNodes() throws Exception {
        List<RedisLockRegistry> two = List.of(node(), node());

        Duration waited = Starvation.threeKeyWaiterAgainstStreams(threads, two, 12, Duration.ofMillis(5),
                Duration.ofSeconds(20));

        assertThat(waited).isLessThan(Duration.ofSeconds(20));
        assertThat(two.get(1).heldLocks()).isEmpty();
        assertThat(redisKeys()).as("no queue left behind").containsOnly("locks:fencing");
    }

    @Test
    void oldestWaiterOnAnotherNodeShouldGetTheKeyBeforeANewerAcquirer() throws Exception {
        RedisLockRegistry a = node();
        RedisLockRegistry b = node();
        Lease holder = a.acquire(List.of("k"));
        CountDownLatch started = new CountDownLatch(1);
        Future<Lease> oldest = threads.start(() -> {
            started.countDown();
            return b.acquire(List.of("k"), patient());
        });
        started.await();
        await().atMost(Threads.BOUND).until(() -> redisKeys().contains("locks:queue:k"));

        holder.close();
        assertThat(a.tryAcquire(List.of("k"))).as("the key is the older waiter's first (queued or taken)").isEmpty();

        Lease taken = Threads.get(oldest);
        assertThat(taken.fencingToken()).isGreaterThan(holder.fencingToken());
        taken.close();
        assertThat(redisKeys()).as("no queue left behind").containsOnly("locks:fencing");
    }

    @Test
    void waitersThatGiveUpShouldLeaveNoKeyBehindInRedis() throws Exception {
        RedisLockRegistry crashed = node();
        RedisLockRegistry waiter = node();
        // a holder that never releases: its lock expires in Redis
        threads.run(() -> crashed.acquire(List.of("k"), AcquireOptions.defaults()
                .withLockTimeout(Duration.ofSeconds(5))));
        AcquireOptions impatient = AcquireOptions.defaults().withRetries(2).withRetryInterval(Duration.ofMillis(1));

        long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        for (int i = 0; i < 200 && System.nanoTime() - end < 0; i++) {
            assertThatThrownBy(() -> waiter.acquire(List.of("k"), impatient)).isInstanceOf(LockTimeoutException.class);
        }

        assertThat(redisKeys()).as("while the lock is held").containsOnly("locks:fencing", "locks:lock:k");
        await().atMost(Threads.BOUND).until(() -> !redisKeys().contains("locks:lock:k"));
        assertThat(redisKeys()).as("once the lock it waited for expired").containsOnly("locks:fencing");
    }

    @Test
    void waitersEndedByAnErrorShouldLeaveNoTicketBehind() throws Exception {
        RedisLockRegistry holderNode = node();
        RedisLockRegistry waiter = node();
        Lease holder = holderNode.acquire(List.of("k"));
        AcquireOptions failing = AcquireOptions.defaults().withRetries(5)
                .withRetryInterval(attempt -> attempt == 0 ? Duration.ofNanos(1) : null);
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> waiter.acquire(List.of("k"), failing))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        assertThat(redisKeys()).as("no ticket left by the waiters").containsOnly("locks:fencing", "locks:lock:k");
        holder.close();
        assertThat(holderNode.tryAcquire(List.of("k"))).as("nobody waits: a newcomer takes the key")
                .hasValueSatisfying(Lease::close);
    }

    private static AcquireOptions patient() {
        return AcquireOptions.defaults().withInfiniteRetries().withRetryInterval(Duration.ofSeconds(5))
                .withWaitTime(Threads.BOUND);
    }

    private static Set<String> redisKeys() {
        Set<String> keys = new TreeSet<>();
        for (Object key : (List<?>) redis.server().command("KEYS", "*")) {
            keys.add((String) key);
        }
        return keys;
    }
}
