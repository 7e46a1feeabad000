package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.contract.Threads;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SPEC 8 (issue 24): a release wakes the head of the key's queue, so the script calls per acquisition stay a small
 * constant whatever the number of waiters. N threads over two nodes wait for one key a third node holds, with a
 * retry interval of minutes (only wake-ups make attempts); after its release the N acquisitions, counted by the
 * server's own INFO commandstats, cost a few script calls each (when every release woke every waiting thread of
 * a node, they cost about N/2 each).
 */
class RedisWakeUpsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Script calls per acquisition allowed: its acquire, its release, a refused attempt or two of a head. */
    private static final int PER_ACQUISITION = 6;

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

    @ParameterizedTest(name = "{0} waiters")
    @ValueSource(ints = {10, 100})
    void scriptCallsPerAcquisitionShouldNotGrowWithTheWaiters(int waiters) throws Exception {
        RedisLockRegistry holder = node();
        List<RedisLockRegistry> waiting = List.of(node(), node());
        AcquireOptions wokenOnly = AcquireOptions.defaults().withInfiniteRetries()
                .withRetryInterval(Duration.ofMinutes(5)).withWaitTime(Duration.ofMinutes(2));
        Lease held = holder.acquire(List.of("k"));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Future<?>> acquirers = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            RedisLockRegistry node = waiting.get(i % 2);
            acquirers.add(threads.start(() -> {
                try (Lease lease = node.acquire(List.of("k"), wokenOnly)) {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    inside.decrementAndGet();
                }
                return null;
            }));
        }
        await().atMost(Threads.BOUND).until(() -> scriptCalls() >= 1 + waiters);
        Thread.sleep(300); // every one of them queued and parked after its failed attempt
        long before = scriptCalls();

        held.close();
        for (Future<?> acquirer : acquirers) {
            Threads.get(acquirer); // within Threads.BOUND, far below the retry interval: every wake-up arrived
        }

        long calls = scriptCalls() - before;
        assertThat(overlaps).hasValue(0);
        assertThat(calls).as("script calls for %d acquisitions", waiters)
                .isLessThanOrEqualTo((long) PER_ACQUISITION * waiters);
        assertThat(holder.heldLocks()).isEmpty();
    }

    private static long scriptCalls() {
        Map<String, Long> calls = redis.server().commandCalls();
        return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L) + calls.getOrDefault("fcall", 0L);
    }
}
