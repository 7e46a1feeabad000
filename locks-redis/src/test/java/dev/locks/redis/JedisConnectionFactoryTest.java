package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spi.RemoteLockStore.Owner;
import dev.locks.spi.RemoteLockStore.Ownership;
import dev.locks.spi.RemoteLockStore.Ticket;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The backend names no client class: on a Jedis connection factory (whose subscription blocks a thread)
 * locks, fencing and wake-ups work as on Lettuce.
 */
class JedisConnectionFactoryTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static JedisConnectionFactory jedis;

    @BeforeAll
    static void connect() {
        jedis = new JedisConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
        jedis.afterPropertiesSet();
    }

    @AfterAll
    static void disconnect() {
        jedis.destroy();
    }

    @Test
    void registryShouldLockFenceAndWakeOnJedis() throws Exception {
        try (RedisLockRegistry onJedis = RedisLockRegistry.builder(jedis).build();
                RedisLockRegistry onLettuce = RedisLockRegistry.builder(redis.connectionFactory()).build()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.server().subscribers("locks:released") == 2);

            Lease first = onJedis.acquire(List.of("a", "b"));
            assertThat(onLettuce.tryAcquire(List.of("b"))).isEmpty();
            assertThat(onLettuce.heldLocks()).extracting(HeldLock::key).containsExactly("a", "b");
            Waiting onLettuceWaits = new Waiting();
            closeWhenWaiting(first, onLettuceWaits);
            Lease second = onLettuce.acquire(List.of("b"), wakeUpOrTimeOut(onLettuceWaits));

            Waiting onJedisWaits = new Waiting();
            closeWhenWaiting(second, onJedisWaits);
            Lease third = onJedis.acquire(List.of("b"), wakeUpOrTimeOut(onJedisWaits)); // via the Jedis subscription

            assertThat(third.fencingToken()).isGreaterThan(second.fencingToken())
                    .isGreaterThan(first.fencingToken());
            third.close();
        }
    }

    @Test
    void subscriptionShouldComeBackAfterARestart() {
        RedisLockStore store = new RedisLockStore(jedis, "locks:", true);
        try {
            Queue<String> released = new ConcurrentLinkedQueue<>();
            store.subscribe(released::add, () -> { });
            await().atMost(Duration.ofSeconds(10)).until(() -> store.subscriptionConfirmations() == 1);

            redis.server().restart(); // the blocking SUBSCRIBE fails: a new subscription replaces it

            await().atMost(Duration.ofSeconds(20)).until(() -> store.subscriptionConfirmations() == 2);
            assertThat(redis.server().subscribers("locks:released")).isEqualTo(1);
            Owner owner = new Owner("o", "o");
            store.tryAcquire(List.of("k"), owner, 10_000);
            store.tryAcquire(List.of("k"), new Owner("waiting", "waiting"), 10_000,
                    new Ticket("waiting", 0, 60_000)); // queues a waiter
            store.release(List.of(new Ownership("k", owner.id(), 0)));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(released).containsExactly("k"));
        } finally {
            store.close();
        }
    }

    /** A 5-minute pause cut to 10 seconds: a timeout unless the release wakes the waiter. */
    private static AcquireOptions wakeUpOrTimeOut(Waiting waiting) {
        return waiting.onlyAWakeUpInTime().withWaitTime(Duration.ofSeconds(10));
    }

    private static void closeWhenWaiting(Lease lease, Waiting waiting) {
        Thread closer = new Thread(() -> {
            try {
                waiting.awaitPause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            lease.close();
        });
        closer.setDaemon(true);
        closer.start();
    }
}
