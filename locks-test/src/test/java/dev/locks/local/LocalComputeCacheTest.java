package dev.locks.local;

import static dev.locks.LocksObserver.ComputeResult.COMPUTED;
import static dev.locks.LocksObserver.ComputeResult.FAILED;
import static dev.locks.LocksObserver.ComputeResult.HIT;
import static dev.locks.LocksObserver.ComputeResult.PROMOTED;
import static dev.locks.LocksObserver.ComputeResult.WAITED;
import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.ComputeTimeoutException;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.contract.ComputeCacheStall;
import dev.locks.test.ManualClock;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What only the in-memory backend does: its builder, its bounded store, its observer. */
class LocalComputeCacheTest {

    private static final Duration TTL = Duration.ofMinutes(1);
    private static final Duration COMPUTE_TIMEOUT = Duration.ofSeconds(30);

    private final ManualClock clock = new ManualClock();
    private final ComputeCacheCallers callers = new ComputeCacheCallers();
    private final Recorder recorder = new Recorder();

    @AfterEach
    void stopCallers() throws InterruptedException {
        callers.close();
    }

    @Test
    void defaultsShouldBeThoseOfTheProperties() {
        LocalComputeCache cache = new LocalComputeCache();

        assertThat(cache.defaultOptions()).isEqualTo(ComputeOptions.defaults());
        assertThat(cache.backend()).isEqualTo("local");
        assertThat(cache.computations()).isEmpty();
        assertThat(cache.inFlightCount()).isZero();
    }

    /**
     * Issue 26: the in-memory cache shares the base of every compute cache (as {@code LocalLockRegistry} shares
     * {@code AbstractLockRegistry}), and so closes as the others do: no more calls, no more background refreshes.
     */
    @Test
    void closedCacheShouldRefuseCallsAsEveryComputeCacheDoes() {
        LocalComputeCache cache = LocalComputeCache.builder().clock(clock).build();
        assertThat(cache.fetchOrCompute("k", TTL, () -> "v")).isEqualTo("v");
        assertThat(cache).isInstanceOf(dev.locks.support.AbstractComputeCache.class).isInstanceOf(AutoCloseable.class);

        cache.close();

        assertThatThrownBy(() -> cache.fetchOrCompute("k", TTL, () -> "w")).isInstanceOf(IllegalStateException.class)
                .hasMessage("this LocalComputeCache is closed");
        assertThatThrownBy(() -> cache.begin("k", TTL, null)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cache.invalidate("k")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void builderShouldRejectInvalidSettingsNamingThem() {
        LocalComputeCache.Builder builder = LocalComputeCache.builder();

        assertThatThrownBy(() -> builder.maxEntries(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxEntries");
        assertThatThrownBy(() -> builder.maxEntries(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxEntries");
        assertThatThrownBy(() -> builder.maxWeight(0, value -> 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWeight");
        assertThatThrownBy(() -> builder.maxWeight(1, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weigher");
        assertThatThrownBy(() -> builder.defaultOptions(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("defaultOptions");
        assertThatThrownBy(() -> builder.clock(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clock");
        assertThatThrownBy(() -> builder.observer(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("observer");
    }

    @Test
    void invalidArgumentsShouldBeRejectedEvenOnAHit() {
        LocalComputeCache cache = cache(LocksObserver.NONE);
        cache.fetchOrCompute("key", TTL, () -> "v");

        assertThatThrownBy(() -> cache.fetchOrCompute("key", (Duration) null, () -> "v")).hasMessageContaining("ttl");
        assertThatThrownBy(() -> cache.fetchOrCompute("key", Duration.ofSeconds(-1), () -> "v")).hasMessageContaining("ttl");
        assertThatThrownBy(() -> cache.fetchOrCompute("key", TTL, null)).hasMessageContaining("compute");
        assertThatThrownBy(() -> cache.fetchOrCompute("key", (ComputeOptions) null, () -> "v")).hasMessageContaining("options");
        assertThatThrownBy(() -> cache.begin("key", (Duration) null, "hint")).hasMessageContaining("ttl");
        assertThatThrownBy(() -> cache.begin("key", (ComputeOptions) null, "hint")).hasMessageContaining("options");
        assertThatThrownBy(() -> cache.complete(null, "v", null)).hasMessageContaining("ticket");
        assertThatThrownBy(() -> cache.complete(new ComputeTicket("key", "id"), "v", Duration.ofSeconds(-1))).hasMessageContaining("ttl");
        assertThatThrownBy(() -> cache.fail(new ComputeTicket("key", "id"), null)).hasMessageContaining("error");
    }

    /** A hit checks the key only for null (a stored key is valid); a miss checks it all before anything happens. */
    @Test
    void invalidKeyShouldBeRejectedBeforeComputingOrReportingAnything() {
        LocalComputeCache cache = cache(recorder);
        Supplier<Object> compute = () -> {
            throw new AssertionError("must not compute an invalid key");
        };

        for (String key : List.of("user:\uD800", "\uDC00x", " ")) {
            assertThatThrownBy(() -> cache.fetchOrCompute(key, TTL, compute))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0");
        }
        assertThatThrownBy(() -> cache.fetchOrCompute(null, TTL, compute))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0 is null");
        assertThat(recorder.events).isEmpty();
        assertThat(cache.inFlightCount()).isZero();
        assertThat(cache.fetchOrCompute("user:\uD83D\uDE00", TTL, () -> "pair")).as("a pair is valid").isEqualTo("pair");
        assertThat(recorder.results()).containsExactly(COMPUTED);
    }

    @Test
    void maxEntriesShouldBoundTheStore() {
        LocalComputeCache cache = LocalComputeCache.builder().maxEntries(10).clock(clock).build();

        for (int i = 0; i < 100; i++) {
            cache.fetchOrCompute("key-" + i, TTL, () -> "v");
        }

        assertThat(cache.storedCount()).isBetween(1L, 10L);
    }

    @Test
    void maxWeightShouldLetAFewHugeValuesEvictOlderOnes() {
        LocalComputeCache cache = LocalComputeCache.builder().maxWeight(1_000, value -> ((byte[]) value).length)
                .clock(clock).build();
        for (int i = 0; i < 100; i++) {
            cache.fetchOrCompute("small-" + i, TTL, () -> new byte[5]);
        }
        assertThat(cache.storedCount()).as("a count alone does not bound them").isEqualTo(100);

        for (int i = 0; i < 3; i++) {
            String huge = "huge-" + i;
            for (int read = 0; read < 5; read++) { // often asked for: worth keeping
                cache.fetchOrCompute(huge, TTL, () -> new byte[300]);
            }
        }

        assertThat(cache.storedWeight()).isBetween(1L, 1_000L);
        assertThat(cache.storedCount()).as("small values evicted for the huge ones").isLessThan(100);
    }

    @Test
    void weigherThatFailsOrWeighsBelowZeroShouldFailTheComputationAndStoreNothing() {
        LocalComputeCache cache = LocalComputeCache.builder().maxWeight(1_000, value -> -1).clock(clock).build();

        assertThatThrownBy(() -> cache.fetchOrCompute("key", TTL, () -> "v")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'key'").hasMessageContaining(">= 0");
        assertThat(cache.storedCount()).isZero();
    }

    @Test
    void observerShouldBeToldHowEachCallEndedAndAfterHowLong() {
        LocalComputeCache cache = cache(recorder);

        cache.fetchOrCompute("computed", TTL, () -> {
            clock.advance(Duration.ofMillis(5));
            return "v";
        });
        cache.fetchOrCompute("computed", TTL, () -> "never");
        assertThatThrownBy(() -> cache.fetchOrCompute("failed", TTL, () -> {
            throw new IllegalStateException("boom");
        })).hasMessage("boom");

        assertThat(recorder.events).containsExactly(
                new Event(COMPUTED, Duration.ofMillis(5).toNanos()), new Event(HIT, 0), new Event(FAILED, 0));
    }

    @Test
    void observerShouldTellPromotedFromWaitedAndComputed() {
        LocalComputeCache cache = cache(recorder);
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        ComputeCacheStall<String> bob = ComputeCacheStall.returning("bob");
        Future<String> first = callers.start("alice", () -> cache.fetchOrCompute("key", TTL, alice));
        alice.awaitEntered();
        Future<String> promoted = waiting(cache, "bob", 1, bob);
        Future<String> waiter = waiting(cache, "carol", 2, () -> "carol");

        clock.advance(COMPUTE_TIMEOUT);
        bob.awaitEntered().release();
        assertThat(result(promoted)).isEqualTo("bob");
        alice.release();

        assertThat(result(first)).isEqualTo("alice");
        assertThat(result(waiter)).isEqualTo("bob");
        assertThat(recorder.results()).containsExactlyInAnyOrder(COMPUTED, PROMOTED, WAITED);
    }

    @Test
    void waiterWhoseWaitTimeRanOutShouldBeReportedAsFailed() {
        LocalComputeCache cache = cache(recorder);
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        Future<String> first = callers.start("alice", () -> cache.fetchOrCompute("key", TTL, alice));
        alice.awaitEntered();

        assertThatThrownBy(() -> cache.fetchOrCompute("key", ComputeOptions.defaults().withWaitTime(Duration.ZERO), () -> "bob"))
                .isInstanceOf(ComputeTimeoutException.class);
        alice.release();

        assertThat(result(first)).isEqualTo("alice");
        assertThat(recorder.results()).containsExactly(FAILED, COMPUTED);
    }

    @Test
    void protocolFormShouldReportTheComputerWhenItIsDone() {
        LocalComputeCache cache = cache(recorder);

        ComputeTicket ticket = ((ComputeOutcome.Compute) cache.begin("key", TTL, "hint")).ticket();
        assertThat(recorder.events).isEmpty();
        clock.advance(Duration.ofMillis(7));
        cache.complete(ticket, "v", null);
        cache.complete(ticket, "again", null);
        cache.begin("key", TTL, "hint");
        ComputeTicket failing = ((ComputeOutcome.Compute) cache.begin("failing", TTL, "hint")).ticket();
        cache.fail(failing, new IllegalStateException("boom"));

        assertThat(recorder.events).containsExactly(
                new Event(COMPUTED, Duration.ofMillis(7).toNanos()), new Event(HIT, 0), new Event(FAILED, 0));
    }

    @Test
    void throwingObserverShouldChangeNothing() {
        LocalComputeCache cache = cache(new LocksObserver() {
            @Override
            public void onCompute(ComputeResult result, long nanos) {
                throw new IllegalStateException("observer broke");
            }
        });
        IllegalArgumentException own = new IllegalArgumentException("the computer's own");
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        Future<String> first = callers.start("alice", () -> cache.fetchOrCompute("key", TTL, alice));
        alice.awaitEntered();
        Future<String> waiter = waiting(cache, "bob", 1, () -> "bob");

        alice.release();

        assertThat(result(first)).isEqualTo("alice");
        assertThat(result(waiter)).isEqualTo("alice");
        assertThat(cache.fetchOrCompute("key", TTL, () -> "never")).isEqualTo("alice");
        assertThatThrownBy(() -> cache.fetchOrCompute("failed", TTL, () -> {
            throw own;
        })).isSameAs(own);
        ComputeTicket ticket = ((ComputeOutcome.Compute) cache.begin("protocol", TTL, "hint")).ticket();
        assertThat(cache.complete(ticket, "v", null)).isTrue();
        assertThat(cache.computations()).isEmpty();
    }

    @Test
    void systemClockShouldEndAWaitTimeInRealTime() {
        LocalComputeCache cache = new LocalComputeCache();
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        Future<String> first = callers.start("alice", () -> cache.fetchOrCompute("key", TTL, alice));
        alice.awaitEntered();
        ComputeOptions impatient = cache.defaultOptions().withWaitTime(Duration.ofMillis(20));

        assertThatThrownBy(() -> cache.fetchOrCompute("key", impatient, () -> "bob")).isInstanceOf(ComputeTimeoutException.class);

        alice.release();
        assertThat(result(first)).isEqualTo("alice");
        assertThat(cache.computations()).isEmpty();
    }

    @Test
    void systemClockShouldReplaceAStalledComputerInRealTime() {
        LocalComputeCache cache = new LocalComputeCache();
        ComputeCacheStall<String> alice = ComputeCacheStall.returning("alice");
        ComputeOptions hasty = cache.defaultOptions().withComputeTimeout(Duration.ofMillis(50));
        Future<String> first = callers.start("alice", () -> cache.fetchOrCompute("key", hasty, alice));
        alice.awaitEntered();

        assertThat(cache.fetchOrCompute("key", TTL, () -> "bob")).as("promoted, or a new miss if alice was overdue already").isEqualTo("bob");

        alice.release();
        assertThat(result(first)).isEqualTo("alice");
        assertThat(cache.fetchOrCompute("key", TTL, () -> "other")).isEqualTo("bob");
        assertThat(cache.computations()).isEmpty();
    }

    @Test
    void hitShouldNotAllocate() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        LocalComputeCache cache = cache(LocksObserver.NONE);
        Supplier<String> compute = () -> "v";
        cache.fetchOrCompute("key", TTL, compute);
        int count = 20_000;
        hits(cache, compute, count);

        long before = threads.getCurrentThreadAllocatedBytes();
        hits(cache, compute, count);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        // one object a hit would be 16 bytes or more a hit; Caffeine scheduling its maintenance now and then
        // may allocate a little
        assertThat(allocated).as("bytes allocated by %d hits", count).isLessThan(count);
    }

    private static void hits(LocalComputeCache cache, Supplier<String> compute, int count) {
        for (int i = 0; i < count; i++) {
            if (cache.fetchOrCompute("key", TTL, compute) == null) {
                throw new AssertionError("missed");
            }
        }
    }

    private LocalComputeCache cache(LocksObserver observer) {
        return LocalComputeCache.builder()
                .defaultOptions(ComputeOptions.defaults().withTtl(TTL).withComputeTimeout(COMPUTE_TIMEOUT))
                .clock(clock)
                .observer(observer)
                .build();
    }

    private Future<String> waiting(LocalComputeCache cache, String name, int nth, Supplier<String> compute) {
        Future<String> waiter = callers.start(name, () -> cache.fetchOrCompute("key", TTL, compute));
        awaitWaiters(cache, "key", nth);
        return waiter;
    }

    private record Event(ComputeResult result, long nanos) {
    }

    /** Records what the cache reports. */
    private static final class Recorder implements LocksObserver {

        final List<Event> events = new CopyOnWriteArrayList<>();

        @Override
        public void onCompute(ComputeResult result, long nanos) {
            events.add(new Event(result, nanos));
        }

        List<ComputeResult> results() {
            return events.stream().map(Event::result).toList();
        }
    }
}
