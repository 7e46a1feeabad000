package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.LockUnavailableException;
import dev.locks.redis.test.RedisConnections;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spi.PartlyUnavailableException;
import dev.locks.spi.RemoteLockStore.Owner;
import dev.locks.spi.RemoteLockStore.Ownership;
import dev.locks.spi.RemoteLockStore.Ticket;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis outage is a {@link LockUnavailableException} naming what failed, from every store method, and
 * when Redis is back everything works again, the subscription included, without a new store.
 */
class RedisLockStoreOutageTest {

    private static final Ticket WAITING = new Ticket("waiting", 0, 60_000);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Owner OWNER = new Owner("node:1", "worker @ node");
    private static final Duration RECOVERY = Duration.ofSeconds(20);

    private RedisLockStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private static void assertUnavailable(ThrowingCallable call, String what) {
        assertThatThrownBy(call).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("could not " + what).hasMessageContaining("key prefix 'locks:'");
    }

    @Test
    void everyMethodShouldReportAnOutageAndWorkAgainAfterARestart() {
        store = new RedisLockStore(redis.connectionFactory(), "locks:", true);
        Queue<String> released = new ConcurrentLinkedQueue<>();
        store.subscribe(released::add, () -> { });
        await().atMost(RECOVERY).until(() -> store.subscriptionConfirmations() == 1);
        long token = store.tryAcquire(List.of("a"), OWNER, 10_000).token();

        redis.server().kill();

        List<Ownership> a = List.of(new Ownership("a", OWNER.id(), 10_000));
        long start = System.nanoTime();
        assertUnavailable(() -> store.tryAcquire(List.of("b", "c"), OWNER, 10_000), "acquire [b, c]");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("about one or two command timeouts")
                .isLessThan(RedisConnections.TIMEOUT.multipliedBy(6));
        assertUnavailable(() -> store.release(a), "release [a]");
        assertUnavailable(() -> store.renew(a), "renew 1 locks");
        assertUnavailable(() -> store.scan(10), "list the locks under 'locks:'");
        assertUnavailable(() -> store.get("a"), "read the lock on 'a'");
        assertUnavailable(() -> store.forceRelease("a"), "force-release 'a'");

        redis.server().restart();

        long after = await().atMost(RECOVERY).ignoreExceptions()
                .until(() -> store.tryAcquire(List.of("b"), OWNER, 10_000).token(), taken -> taken > 0);
        assertThat(after).as("above the tokens issued before the data was lost").isGreaterThan(token);
        assertThat(store.scan(10)).hasSize(1);
        await().atMost(RECOVERY).until(() -> store.subscriptionConfirmations() == 2);
        store.tryAcquire(List.of("b"), new Owner("waiting", "waiting"), 10_000, WAITING); // queues a waiter
        assertThat(store.release(List.of(new Ownership("b", OWNER.id(), 0)))).isEmpty();
        await().atMost(RECOVERY).untilAsserted(() -> assertThat(released).contains("b"));
        assertThat(redis.server().subscribers("locks:released")).isEqualTo(1);
    }

    @Test
    void clientThatRejectsCommandsWhileDisconnectedShouldReportAnOutageAtOnce() {
        LettuceConnectionFactory rejecting = RedisConnections.connectionFactory(redis.port(), Duration.ofSeconds(5),
                DisconnectedBehavior.REJECT_COMMANDS);
        try {
            store = new RedisLockStore(rejecting, "locks:", false);
            store.get("warm-up");
            redis.server().kill();

            long start = System.nanoTime();
            assertUnavailable(() -> store.tryAcquire(List.of("k"), OWNER, 10_000), "acquire [k]");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not the 5-second command timeout")
                    .isLessThan(Duration.ofSeconds(2));

            redis.server().restart();
            await().atMost(RECOVERY).ignoreExceptions()
                    .until(() -> store.tryAcquire(List.of("k"), OWNER, 10_000).isTaken());
        } finally {
            rejecting.destroy();
        }
    }

    @Test
    void subscriptionShouldStartOnceRedisIsUpWhenItWasDownAtFirst() {
        store = new RedisLockStore(redis.connectionFactory(), "locks:", true);
        redis.server().stop();
        Queue<String> released = new ConcurrentLinkedQueue<>();

        assertThat(store.subscribe(released::add, () -> { })).isTrue();
        redis.server().restart();

        await().atMost(RECOVERY).until(() -> store.subscriptionConfirmations() >= 1);
        await().atMost(RECOVERY).ignoreExceptions().until(() -> {
            store.tryAcquire(List.of("k"), OWNER, 10_000);
            store.tryAcquire(List.of("k"), new Owner("waiting", "waiting"), 10_000, WAITING); // queues a waiter
            store.release(List.of(new Ownership("k", OWNER.id(), 0)));
            store.dequeue(List.of("k"), WAITING.id());
            return released.contains("k");
        });
    }

    /**
     * A server that is slow rather than down runs a script after the client gave up on it: the store does not
     * undo such an acquire itself (that would make the failed call wait a second timeout) but names every key
     * as in doubt, for the engine to release in the background.
     */
    @Test
    void acquireThatTimedOutShouldNameItsKeysInDoubt() {
        store = new RedisLockStore(redis.connectionFactory(), "locks:", false);
        store.tryAcquire(List.of("warm-up"), OWNER, 10_000); // the server knows the scripts: EVALSHA runs late
        store.release(List.of(new Ownership("warm-up", OWNER.id(), 0)));
        long tokens = Long.parseLong((String) redis.server().command("GET", "locks:fencing"));
        redis.server().command("CLIENT", "PAUSE", "1500", "ALL");

        assertThatThrownBy(() -> store.tryAcquire(List.of("a", "b"), OWNER, 0))
                .isInstanceOfSatisfying(PartlyUnavailableException.class,
                        e -> assertThat(e.unreached()).containsExactlyInAnyOrder("a", "b"))
                .hasMessageContaining("could not acquire [a, b]");

        await().atMost(RECOVERY).ignoreExceptions()
                .until(() -> Long.parseLong((String) redis.server().command("GET", "locks:fencing")) > tokens);
        assertThat(store.get("a")).as("it did run, late").isNotNull();
    }

    /**
     * Through the registry: an acquire that timed out but ran late on the server does not leave its keys taken
     * by an owner that was told it failed, for the minute of its lock timeout; the engine undoes it.
     */
    @Test
    void acquireThatTimedOutShouldNotLeaveItsKeysTaken() {
        store = new RedisLockStore(redis.connectionFactory(), "locks:", false);
        try (RedisLockRegistry registry = RedisLockRegistry.builder(redis.connectionFactory()).notify(false)
                .timeout(Duration.ofMillis(500)).build()) {
            registry.withLocks(List.of("warm-up"), () -> "scripts loaded");
            long tokens = Long.parseLong((String) redis.server().command("GET", "locks:fencing"));
            redis.server().command("CLIENT", "PAUSE", "1500", "ALL");

            assertThatThrownBy(() -> registry.acquire(List.of("a", "b"),
                    AcquireOptions.defaults().withRetries(0).withLockTimeout(Duration.ofMinutes(1))))
                    .isInstanceOf(LockUnavailableException.class);

            await().atMost(RECOVERY).ignoreExceptions()
                    .until(() -> Long.parseLong((String) redis.server().command("GET", "locks:fencing")) > tokens);
            // it did run, late, and was undone long before its minute:
            await().atMost(RECOVERY).untilAsserted(() -> {
                assertThat(store.get("a")).isNull();
                assertThat(store.get("b")).isNull();
            });
        }
    }
}
