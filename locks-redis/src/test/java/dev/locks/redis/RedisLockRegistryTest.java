package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockUnavailableException;
import dev.locks.contract.ScheduledJobChecks;
import dev.locks.contract.Threads;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What only a distributed registry does, with two "nodes" (registries, each on its own connection factory)
 * in this JVM: exclusion and fencing across nodes, wake-ups by publish, expiry and the watchdog in Redis,
 * release on close, and outages.
 */
class RedisLockRegistryTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final AcquireOptions PATIENT = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMillis(5));
    private static final Duration SHORT = Duration.ofMillis(500);

    private final List<RedisLockRegistry> nodes = new ArrayList<>();
    private final Threads threads = new Threads();

    @AfterEach
    void close() {
        threads.close();
        nodes.forEach(RedisLockRegistry::close);
    }

    private RedisLockRegistry node() {
        return node(builder -> builder);
    }

    private RedisLockRegistry node(UnaryOperator<RedisLockRegistry.Builder> settings) {
        RedisLockRegistry node = settings.apply(RedisLockRegistry.builder(redis.newConnectionFactory())
                .cleanupInterval(Duration.ZERO)).build();
        nodes.add(node);
        return node;
    }

    @Test
    void ownersShouldNameTheApplicationAndTheHostSoThatOperationsSeeWhichInstanceHoldsAKey() throws Exception {
        ScheduledJobChecks.ownersShouldNameTheApplicationAndTheHost(node(builder -> builder.applicationName("report-service")), node());
    }

    @Test
    void theWatchdogShouldStopAtCloseAndTheHoldShouldShortenARenewedLease() throws Exception {
        ScheduledJobChecks.watchdogShouldStopAtCloseAndTheHoldShouldShortenARenewedLease(
                node(builder -> builder.watchdog(true)));
    }

    @Test
    void builderShouldDefaultAndCheckItsSettings() {
        RedisLockRegistry registry = RedisLockRegistry.builder(redis.connectionFactory()).build();
        nodes.add(registry);

        assertThat(registry.backend()).isEqualTo("redis");
        assertThat(registry.defaultOptions()).isEqualTo(AcquireOptions.defaults());
        assertThatThrownBy(() -> RedisLockRegistry.builder(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("connectionFactory");
        assertThatThrownBy(() -> RedisLockRegistry.builder(redis.connectionFactory()).keyPrefix(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisLockRegistry.builder(redis.connectionFactory()).cleanupBatchSize(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cleanupBatchSize");
    }

    @Test
    void nodesShouldExcludeEachOtherAndTheirTokensShouldNeverGoBackwards() throws Exception {
        StringRedisTemplate data = new StringRedisTemplate(redis.connectionFactory());
        List<Future<Object>> workers = new ArrayList<>();
        for (RedisLockRegistry node : List.of(node(), node())) {
            for (int thread = 0; thread < 2; thread++) {
                workers.add(threads.start(() -> {
                    LockWorker.increment(node, data, 150);
                    return null;
                }));
            }
        }
        for (Future<Object> worker : workers) {
            Threads.get(worker);
        }

        assertThat(data.opsForValue().get("counter")).isEqualTo("600");
        assertThat(data.opsForList().range("tokens", 0, -1)).hasSize(600)
                .extracting(Long::parseLong).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void waiterOnAnotherNodeShouldBeWokenByTheRelease() throws Exception {
        RedisLockRegistry one = node();
        RedisLockRegistry two = node();
        Lease held = one.acquire(List.of("k"));
        Waiting waiter = new Waiting();
        Future<Long> waiting = threads.start(() -> {
            long start = System.nanoTime();
            try (Lease lease = two.acquire(List.of("k"), waiter.onlyAWakeUpInTime())) {
                return System.nanoTime() - start;
            }
        });

        waiter.awaitPause();
        held.close();

        assertThat(Duration.ofNanos(Threads.get(waiting))).as("not the 5-minute interval")
                .isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void withoutNotificationWaitersShouldPollAtTheirRetryInterval() throws Exception {
        RedisLockRegistry one = node(builder -> builder.notify(false));
        RedisLockRegistry two = node(builder -> builder.notify(false));
        assertThat(redis.server().subscribers("locks:released")).isZero();
        Lease held = one.acquire(List.of("k"));
        Waiting waiter = new Waiting();
        Future<Long> waiting = threads.start(() -> {
            long start = System.nanoTime();
            try (Lease lease = two.acquire(List.of("k"), waiter.options(Duration.ofMillis(400)))) {
                return System.nanoTime() - start;
            }
        });

        waiter.awaitPause();
        held.close();

        assertThat(Duration.ofNanos(Threads.get(waiting))).as("the whole pause, not woken")
                .isGreaterThanOrEqualTo(Duration.ofMillis(400));
    }

    @Test
    void lockShouldExpireInRedisAfterItsTimeoutWithoutTheWatchdog() {
        RedisLockRegistry one = node();
        RedisLockRegistry two = node();
        Lease lease = one.acquire(List.of("k"), PATIENT.withLockTimeout(SHORT));
        long start = System.nanoTime();

        Lease taken = await().pollInSameThread().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> two.tryAcquire(List.of("k")), Optional::isPresent).get();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(SHORT.minusMillis(50));
        assertThat(lease.isHeld()).isFalse();
        assertThat(taken.fencingToken()).isGreaterThan(lease.fencingToken());
        lease.close();
        assertThat(taken.isHeld()).as("closing the lost lease released nothing").isTrue();
        assertThat(two.heldLock("k")).map(HeldLock::fencingToken).contains(taken.fencingToken());
        taken.close();
    }

    @Test
    void watchdogShouldKeepALiveHoldersLockPastItsTimeout() throws Exception {
        RedisLockRegistry one = node(builder -> builder.watchdog(true));
        RedisLockRegistry two = node();
        Lease lease = one.acquire(List.of("k"), PATIENT.withLockTimeout(SHORT));

        Thread.sleep(SHORT.multipliedBy(3).toMillis());

        assertThat(two.tryAcquire(List.of("k"))).isEmpty();
        assertThat(lease.isHeld()).isTrue();
        lease.close();
        assertThat(two.tryAcquire(List.of("k"))).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void heldLocksShouldListEveryNodesLocksWithoutThePrefix() {
        RedisLockRegistry one = node();
        RedisLockRegistry two = node();
        RedisLockRegistry elsewhere = node(builder -> builder.keyPrefix("other-app:"));
        try (Lease a = one.acquire(List.of("a"));
                Lease b = threads.run(() -> two.acquire(List.of("b", "c")))) {

            assertThat(one.heldLocks()).extracting(HeldLock::key).containsExactly("a", "b", "c");
            assertThat(one.heldLocks()).extracting(HeldLock::owner)
                    .allSatisfy(owner -> assertThat(owner).contains("@"));
            assertThat(one.heldLock("c")).map(HeldLock::fencingToken).contains(b.fencingToken());
            assertThat(one.heldCount()).as("this node's").isEqualTo(1);
            assertThat(elsewhere.heldLocks()).isEmpty();
            assertThat(elsewhere.tryAcquire(List.of("a"))).isPresent().get().satisfies(Lease::close);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void forceReleaseShouldFreeALockHeldOnAnotherNode() {
        RedisLockRegistry one = node();
        RedisLockRegistry two = node();
        Lease lease = one.acquire(List.of("k"));

        assertThat(two.forceRelease("k")).isTrue();

        assertThat(two.tryAcquire(List.of("k"))).isPresent().get().satisfies(Lease::close);
        lease.close();
    }

    @Test
    void closeShouldReleaseThisNodesLocksInRedis() {
        RedisLockRegistry one = node();
        RedisLockRegistry two = node();
        one.acquire(List.of("a", "b"), PATIENT.withLockTimeout(Duration.ofMinutes(1)));

        one.close();

        assertThat(two.tryAcquire(List.of("a", "b"))).as("not after a minute").isPresent().get()
                .satisfies(Lease::close);
        assertThat(redis.server().subscribers("locks:released")).isEqualTo(1);
    }

    @Test
    void outageShouldBeUnavailableNotATimeoutAndPassWhenRedisIsBack() throws Exception {
        RedisLockRegistry one = node();
        RedisLockRegistry two = node();
        one.acquire(List.of("warm-up")).close();

        redis.server().kill();

        assertThatThrownBy(() -> one.acquire(List.of("k"), PATIENT))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("acquire [k]");
        assertThat(one.heldCount()).as("nothing half-acquired").isZero();

        redis.server().restart();

        Lease lease = await().pollInSameThread().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                .until(() -> one.acquire(List.of("k"), PATIENT.withRetries(0)), Lease::isHeld);
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.server().subscribers("locks:released") == 2);
        Waiting waiter = new Waiting();
        Future<Lease> waiting = threads.start(() -> two.acquire(List.of("k"), waiter.onlyAWakeUpInTime()));
        waiter.awaitPause();
        lease.close();
        assertThat(Threads.get(waiting).isHeld()).as("woken through the restored subscription").isTrue();
    }

    @Test
    void restartThatLosesTheLocksShouldWakeOtherNodesWaiters() throws Exception {
        RedisLockRegistry one = node();
        RedisLockRegistry two = node();
        Lease held = one.acquire(List.of("k"));
        Waiting waiter = new Waiting();
        Future<Lease> waiting = threads.start(() -> two.acquire(List.of("k"), waiter.onlyAWakeUpInTime()));
        waiter.awaitPause();

        redis.server().restart(); // the lock vanishes with no release message; the subscriptions come back

        assertThat(Threads.get(waiting).isHeld()).as("woken when the subscription was restored").isTrue();
        held.close();
    }
}
