package dev.locks.contract;

import static dev.locks.contract.ComputeCacheCallers.PATIENCE;
import static dev.locks.contract.ComputeCacheCallers.async;
import static dev.locks.contract.ComputeCacheCallers.computation;
import static dev.locks.contract.ComputeCacheCallers.failure;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.test.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ComputeCache} backend promises of section 11: refresh-ahead ({@code refreshAfter}) and
 * stale-if-error ({@code staleIfError}), each on two nodes of one store (a backend for one JVM gives the same cache
 * as both). A backend's test subclasses this and implements {@link #newNode}; if its time does not follow the
 * {@link ManualClock} it is given, it also overrides {@link #elapse}.
 */
public abstract class FreshValuesContract {

    protected static final Duration TTL = Duration.ofSeconds(10);
    protected static final Duration REFRESH_AFTER = Duration.ofSeconds(2);
    protected static final Duration ERROR_BACKOFF = Duration.ofSeconds(5);
    protected static final ComputeOptions DEFAULTS =
            ComputeOptions.defaults().withTtl(TTL).withComputeTimeout(Duration.ofSeconds(5));
    protected static final ComputeOptions REFRESHING = DEFAULTS.withRefreshAfter(REFRESH_AFTER);
    protected static final ComputeOptions STALE = DEFAULTS.withStaleIfError(Duration.ofHours(1));

    protected final ManualClock clock = new ManualClock();
    protected final ComputeCacheCallers callers = new ComputeCacheCallers();
    protected final Outcomes outcomes = new Outcomes();
    protected ComputeCache a;
    protected ComputeCache b;
    private final List<ComputeCache> nodes = new ArrayList<>();
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /**
     * A node of the store shared by this test's nodes, with these settings: {@code first} is {@code null} for the
     * first node, and the first node for any other (a backend for one JVM returns it).
     */
    protected abstract ComputeCache newNode(ComputeOptions defaults, LocksClock clock, LocksObserver observer,
            Duration errorBackoff, int refreshMaxConcurrent, ComputeCache first);

    /** Lets {@code duration} pass for the nodes and their store: by default, advances the manual clock. */
    protected void elapse(Duration duration) {
        clock.advance(duration);
    }

    protected String key(String name) {
        return name + ":" + run;
    }

    @BeforeEach
    void startNodes() {
        startNodes(4);
    }

    private void startNodes(int refreshMaxConcurrent) {
        a = node(refreshMaxConcurrent, null);
        b = node(refreshMaxConcurrent, a);
    }

    private ComputeCache node(int refreshMaxConcurrent, ComputeCache first) {
        ComputeCache node = newNode(DEFAULTS, clock, outcomes, ERROR_BACKOFF, refreshMaxConcurrent, first);
        nodes.add(node);
        return node;
    }

    @AfterEach
    void stopNodes() throws Exception {
        callers.close();
        for (ComputeCache node : nodes) {
            await().atMost(PATIENCE).until(() -> node.computations().isEmpty());
        }
        for (ComputeCache node : nodes.stream().distinct().toList()) {
            if (node instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }

    // ---- refreshAfter

    @Test
    void dueReadShouldReturnTheOldValueAtOnceWhileTheRefreshRunsThenTheNewOne() throws Exception {
        String key = storedAndDue("due");
        CountDownLatch release = new CountDownLatch(1);
        Blocked refresh = new Blocked(release, "v2");

        Future<String> read = callers.start("reader", () -> a.fetchOrCompute(key, REFRESHING, refresh));

        assertThat(result(read)).isEqualTo("v1"); // returned while the refresh is blocked
        refresh.awaitStarted();
        assertThat(computation(a, key)).isPresent(); // the refresh shows as a computation
        assertThat(a.fetchOrCompute(key, REFRESHING, refresh)).isEqualTo("v1");
        release.countDown();
        await().atMost(PATIENCE).until(() -> "v2".equals(a.fetchOrCompute(key, REFRESHING, refresh)));
        assertThat(b.fetchOrCompute(key, REFRESHING, refresh)).isEqualTo("v2");
        assertThat(refresh.calls()).isEqualTo(1);
        await().atMost(PATIENCE).until(() -> outcomes.count(ComputeResult.REFRESHED) == 1);
    }

    @Test
    void fiftyConcurrentDueHitsOnTwoNodesShouldRefreshOnce() throws Exception {
        String key = storedAndDue("fifty");
        CountDownLatch release = new CountDownLatch(1);
        Blocked refresh = new Blocked(release, "v2");

        List<Future<String>> reads = atOnceOnBothNodes(50, key, REFRESHING, refresh);

        for (Future<String> read : reads) {
            assertThat(result(read)).isEqualTo("v1");
        }
        release.countDown();
        await().atMost(PATIENCE).until(() -> "v2".equals(a.fetchOrCompute(key, REFRESHING, refresh))
                && "v2".equals(b.fetchOrCompute(key, REFRESHING, refresh)));
        for (ComputeCache node : List.of(a, b)) {
            await().atMost(PATIENCE).until(() -> node.computations().isEmpty());
        }

        assertThat(refresh.calls()).isEqualTo(1);
        assertThat(outcomes.count(ComputeResult.REFRESHED)).isEqualTo(1);
    }

    @Test
    void keyNobodyReadsShouldNeverBeRefreshed() throws Exception {
        String key = key("unread");
        AtomicInteger calls = new AtomicInteger();
        Supplier<String> compute = () -> "v" + calls.incrementAndGet();
        a.fetchOrCompute(key, REFRESHING, compute);

        elapse(REFRESH_AFTER.plusSeconds(1));
        Thread.sleep(300); // a timer per key, or a sweep, would refresh it now
        elapse(REFRESH_AFTER);
        Thread.sleep(300);

        assertThat(calls.get()).isEqualTo(1);
        assertThat(outcomes.count(ComputeResult.REFRESHED)).isZero();
        assertThat(a.computations()).isEmpty();
        assertThat(b.computations()).isEmpty();
        assertThat(a.fetchOrCompute(key, REFRESHING, compute)).isEqualTo("v1"); // now one is due, and starts
        await().atMost(PATIENCE).until(() -> outcomes.count(ComputeResult.REFRESHED) == 1);
    }

    @Test
    void failingRefreshShouldKeepTheOldValueAndRetryOncePerBackOff() {
        String key = key("failing-refresh");
        AtomicInteger attempts = new AtomicInteger();
        Supplier<String> compute = () -> {
            if (attempts.incrementAndGet() == 1) {
                return "v1";
            }
            throw new IllegalStateException("upstream down");
        };
        a.fetchOrCompute(key, REFRESHING, compute);
        elapse(REFRESH_AFTER.plusSeconds(1));

        assertThat(a.fetchOrCompute(key, REFRESHING, compute)).isEqualTo("v1");
        await().atMost(PATIENCE).until(() -> outcomes.count(ComputeResult.REFRESH_FAILED) == 1);
        for (int i = 0; i < 20; i++) {
            assertThat((i % 2 == 0 ? a : b).fetchOrCompute(key, REFRESHING, compute)).isEqualTo("v1");
        }
        awaitIdle();
        assertThat(attempts.get()).isEqualTo(2); // the first value, one refresh: backing off since

        elapse(ERROR_BACKOFF.plusMillis(500));
        assertThat(b.fetchOrCompute(key, REFRESHING, compute)).isEqualTo("v1");
        await().atMost(PATIENCE).until(() -> outcomes.count(ComputeResult.REFRESH_FAILED) == 2);
        for (int i = 0; i < 20; i++) {
            assertThat((i % 2 == 0 ? a : b).fetchOrCompute(key, REFRESHING, compute)).isEqualTo("v1");
        }
        awaitIdle();
        assertThat(attempts.get()).isEqualTo(3);
    }

    @Test
    void invalidateDuringARefreshShouldWinOverItsResult() throws Exception {
        String key = storedAndDue("invalidated-refresh");
        CountDownLatch release = new CountDownLatch(1);
        Blocked refresh = new Blocked(release, "v2");
        assertThat(a.fetchOrCompute(key, REFRESHING, refresh)).isEqualTo("v1");
        refresh.awaitStarted();

        b.invalidate(key);
        release.countDown();
        awaitIdle();

        assertThat(b.fetchOrCompute(key, REFRESHING, () -> "v3")).isEqualTo("v3");
        assertThat(a.fetchOrCompute(key, REFRESHING, () -> "v4")).isEqualTo("v3");
    }

    @Test
    void fullRefreshPoolShouldSkipAndCountTheRefresh() throws Exception {
        stopNodes();
        nodes.clear();
        startNodes(1);
        String busy = key("busy");
        String skipped = key("skipped");
        a.fetchOrCompute(busy, REFRESHING, () -> "b1");
        a.fetchOrCompute(skipped, REFRESHING, () -> "s1");
        elapse(REFRESH_AFTER.plusSeconds(1));
        CountDownLatch release = new CountDownLatch(1);
        Blocked blocking = new Blocked(release, "b2");
        AtomicInteger skippedCalls = new AtomicInteger();
        Supplier<String> other = () -> "s" + (1 + skippedCalls.incrementAndGet());

        assertThat(a.fetchOrCompute(busy, REFRESHING, blocking)).isEqualTo("b1");
        blocking.awaitStarted();
        assertThat(a.fetchOrCompute(skipped, REFRESHING, other)).isEqualTo("s1");

        assertThat(outcomes.count(ComputeResult.REFRESH_SKIPPED)).isEqualTo(1);
        release.countDown();
        awaitIdle();
        assertThat(skippedCalls.get()).isZero();
        await().atMost(PATIENCE).until(() -> "s2".equals(a.fetchOrCompute(skipped, REFRESHING, other))); // tried again
        assertThat(skippedCalls.get()).isEqualTo(1);
    }

    // ---- staleIfError

    @Test
    void failureAfterTheTtlShouldServeTheStaleValueToTheComputerAndTwentyWaitersOnTwoNodes() throws Exception {
        String key = key("stale");
        a.fetchOrCompute(key, STALE, () -> "v1");
        elapse(TTL.plusSeconds(1));
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger attempts = new AtomicInteger();
        Supplier<String> failing = () -> {
            attempts.incrementAndGet();
            hold(release);
            throw new IllegalStateException("upstream down");
        };
        List<Future<String>> calls = atOnceOnBothNodes(20, key, STALE, failing);
        // every caller joined: the computer's node shows its other callers, the other node them and its own caller
        await().atMost(PATIENCE).until(() -> attempts.get() == 1
                && (a == b ? waiters(a, key) == 19 : waiters(a, key) + waiters(b, key) == 19));

        release.countDown();
        for (Future<String> call : calls) {
            assertThat(result(call)).isEqualTo("v1");
        }
        assertThat(attempts.get()).isEqualTo(1);
        assertThat(outcomes.count(ComputeResult.STALE)).isEqualTo(20);

        for (int i = 0; i < 20; i++) { // within the back-off: stale at once, no attempt
            assertThat((i % 2 == 0 ? a : b).fetchOrCompute(key, STALE, failing)).isEqualTo("v1");
        }
        assertThat(attempts.get()).isEqualTo(1);

        elapse(ERROR_BACKOFF.plusMillis(500));
        assertThat(b.fetchOrCompute(key, STALE, failing)).isEqualTo("v1"); // one new attempt, failing again
        assertThat(a.fetchOrCompute(key, STALE, failing)).isEqualTo("v1");
        assertThat(attempts.get()).isEqualTo(2);

        elapse(ERROR_BACKOFF.plusMillis(500));
        assertThat(a.fetchOrCompute(key, STALE, () -> "v2")).isEqualTo("v2"); // the upstream is back
        assertThat(b.fetchOrCompute(key, STALE, failing)).isEqualTo("v2");
    }

    @Test
    void waiterWhoseWaitTimeRunsOutShouldGetTheStaleValue() throws Exception {
        String key = key("stale-wait");
        a.fetchOrCompute(key, STALE, () -> "v1");
        elapse(TTL.plusSeconds(1));
        CountDownLatch release = new CountDownLatch(1);
        Blocked slow = new Blocked(release, "v2");
        Future<String> computer = callers.start("computer", () -> a.fetchOrCompute(key, STALE, slow));
        slow.awaitStarted();

        Future<String> waiter = callers.start("waiter",
                () -> b.fetchOrCompute(key, STALE.withWaitTime(Duration.ofMillis(100)), slow));
        await().atMost(PATIENCE).until(() -> waiters(b, key) == 1);
        clock.advance(Duration.ofMillis(200)); // the waiter's own wait time runs on the caches' clock

        assertThat(result(waiter)).isEqualTo("v1");

        release.countDown();
        assertThat(result(computer)).isEqualTo("v2");
        assertThat(slow.calls()).isEqualTo(1);
        assertThat(b.fetchOrCompute(key, STALE, slow)).isEqualTo("v2");
    }

    @Test
    void failureWithoutAStaleValueShouldReachEveryCaller() throws Exception {
        String key = key("no-stale");
        CountDownLatch release = new CountDownLatch(1);
        Supplier<String> failing = () -> {
            hold(release);
            throw new IllegalStateException("upstream down");
        };
        Future<String> first = callers.start("first", () -> a.fetchOrCompute(key, STALE, failing));
        await().atMost(PATIENCE).until(() -> computation(a, key).isPresent());
        Future<String> waiterA = callers.start("waiter-a", () -> a.fetchOrCompute(key, STALE, failing));
        Future<String> waiterB = callers.start("waiter-b", () -> b.fetchOrCompute(key, STALE, failing));
        await().atMost(PATIENCE).until(() -> a == b ? waiters(a, key) == 2 : waiters(a, key) == 1 && waiters(b, key) == 1);

        release.countDown();

        assertThat(failure(first)).isInstanceOf(IllegalStateException.class).hasMessage("upstream down");
        assertThat(failure(waiterA)).hasMessageContaining("upstream down");
        assertThat(failure(waiterB)).hasMessageContaining("upstream down");
        assertThat(outcomes.count(ComputeResult.STALE)).isZero();
    }

    @Test
    void failureAfterTheStaleWindowShouldReachTheCaller() {
        String key = key("stale-window");
        ComputeOptions shortStale = DEFAULTS.withStaleIfError(Duration.ofSeconds(2));
        a.fetchOrCompute(key, shortStale, () -> "v1");
        elapse(TTL.plusSeconds(1));
        Supplier<String> down = () -> {
            throw new IllegalStateException("upstream down");
        };
        assertThat(b.fetchOrCompute(key, shortStale, down)).isEqualTo("v1");

        elapse(Duration.ofSeconds(2));

        Supplier<String> stillDown = () -> {
            throw new IllegalStateException("still down");
        };
        assertThatThrownBy(() -> b.fetchOrCompute(key, shortStale, stillDown))
                .isInstanceOf(IllegalStateException.class).hasMessage("still down");
        assertThatThrownBy(() -> a.fetchOrCompute(key, shortStale, stillDown))
                .isInstanceOf(IllegalStateException.class).hasMessage("still down");
    }

    @Test
    void staleValueShouldNotBeAHitForACallWithoutStaleIfError() {
        String key = key("stale-not-hit");
        a.fetchOrCompute(key, STALE, () -> "v1");
        elapse(TTL.plusSeconds(1));

        assertThat(b.fetchOrCompute(key, DEFAULTS, () -> "v2")).isEqualTo("v2");
        assertThatThrownBy(() -> a.fetchOrCompute(key(("other")), DEFAULTS.withTtl(Duration.ofSeconds(1))
                .withRefreshAfter(Duration.ofSeconds(1)), () -> "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refreshAfter");
    }

    /** A key of this run whose value "v1" was stored through node A and is now due for a refresh. */
    private String storedAndDue(String name) {
        String key = key(name);
        a.fetchOrCompute(key, REFRESHING, () -> "v1");
        elapse(REFRESH_AFTER.plusSeconds(1));
        return key;
    }

    /** {@code count} calls of {@code key}, half on each node, let go together. */
    private List<Future<String>> atOnceOnBothNodes(int count, String key, ComputeOptions options,
            Supplier<String> compute) {
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<String>> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ComputeCache node = i % 2 == 0 ? a : b;
            calls.add(callers.start("caller-" + i, () -> {
                gate.await();
                return node.fetchOrCompute(key, options, compute);
            }));
        }
        gate.countDown();
        return calls;
    }

    // ---- the same without a thread (AsyncComputeCache)

    @Test
    void asyncDueReadShouldReturnTheOldValueAtOnceWhileTheRefreshRunsThenTheNewOne() throws Exception {
        String key = storedAndDue("async-due");
        CompletableFuture<String> refreshed = new CompletableFuture<>();
        AtomicInteger calls = new AtomicInteger();
        Supplier<CompletableFuture<String>> refresh = () -> {
            calls.incrementAndGet();
            return refreshed;
        };

        assertThat(result(async(a).fetchOrComputeAsync(key, REFRESHING, refresh))).isEqualTo("v1");
        await().atMost(PATIENCE).until(() -> calls.get() == 1 && computation(a, key).isPresent());
        assertThat(result(async(a).fetchOrComputeAsync(key, REFRESHING, refresh))).isEqualTo("v1");
        refreshed.complete("v2");
        await().atMost(PATIENCE).until(() -> "v2".equals(result(async(a).fetchOrComputeAsync(key, REFRESHING,
                refresh))));
        assertThat(result(async(b).fetchOrComputeAsync(key, REFRESHING, refresh))).isEqualTo("v2");
        assertThat(calls).hasValue(1);
        await().atMost(PATIENCE).until(() -> outcomes.count(ComputeResult.REFRESHED) == 1);
    }

    @Test
    void asyncFailureAfterTheTtlShouldServeTheStaleValueToTheComputerAndItsWaiters() throws Exception {
        String key = key("async-stale");
        a.fetchOrCompute(key, STALE, () -> "v1");
        elapse(TTL.plusSeconds(1));
        CompletableFuture<String> failing = new CompletableFuture<>();
        AtomicInteger attempts = new AtomicInteger();
        Supplier<CompletableFuture<String>> compute = () -> {
            attempts.incrementAndGet();
            return failing;
        };
        CompletableFuture<String> computer = async(a).fetchOrComputeAsync(key, STALE, compute);
        await().atMost(PATIENCE).until(() -> attempts.get() == 1);
        List<CompletableFuture<String>> waiters = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            waiters.add(async(i % 2 == 0 ? a : b).fetchOrComputeAsync(key, STALE, compute));
        }
        await().atMost(PATIENCE).until(() -> a == b ? waiters(a, key) == 10 : waiters(a, key) + waiters(b, key) == 10);

        failing.completeExceptionally(new IllegalStateException("upstream down"));

        assertThat(result(computer)).isEqualTo("v1");
        for (CompletableFuture<String> waiter : waiters) {
            assertThat(result(waiter)).isEqualTo("v1");
        }
        assertThat(attempts).hasValue(1);
        assertThat(outcomes.count(ComputeResult.STALE)).isEqualTo(11);
        assertThat(result(async(b).fetchOrComputeAsync(key, STALE, compute))).as("backing off: stale at once")
                .isEqualTo("v1");
        assertThat(attempts).hasValue(1);
    }

    @Test
    void asyncFailureWithoutAStaleValueShouldReachEveryCaller() {
        String key = key("async-no-stale");
        CompletableFuture<String> failing = new CompletableFuture<>();
        CompletableFuture<String> first = async(a).fetchOrComputeAsync(key, STALE, () -> failing);
        await().atMost(PATIENCE).until(() -> computation(a, key).isPresent());
        CompletableFuture<String> waiterA = async(a).fetchOrComputeAsync(key, STALE, () -> failing);
        CompletableFuture<String> waiterB = async(b).fetchOrComputeAsync(key, STALE, () -> failing);
        await().atMost(PATIENCE).until(() -> a == b ? waiters(a, key) == 2 : waiters(a, key) == 1 && waiters(b, key) == 1);

        failing.completeExceptionally(new IllegalStateException("upstream down"));

        assertThat(failure(first)).isInstanceOf(IllegalStateException.class).hasMessage("upstream down");
        assertThat(failure(waiterA)).hasMessageContaining("upstream down");
        assertThat(failure(waiterB)).hasMessageContaining("upstream down");
        assertThat(outcomes.count(ComputeResult.STALE)).isZero();
    }

    private void awaitIdle() {
        for (ComputeCache node : List.of(a, b)) {
            await().atMost(PATIENCE).until(() -> node.computations().isEmpty());
        }
    }

    private static int waiters(ComputeCache node, String key) {
        return computation(node, key).map(Computation::waiters).orElse(0);
    }

    private static void hold(CountDownLatch latch) {
        try {
            if (!latch.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the test did not release the computation");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A computation that blocks until released, then returns its value; counts its calls. */
    protected static final class Blocked implements Supplier<String> {

        private final CountDownLatch release;
        private final CountDownLatch started = new CountDownLatch(1);
        private final String value;
        private final AtomicInteger calls = new AtomicInteger();

        Blocked(CountDownLatch release, String value) {
            this.release = release;
            this.value = value;
        }

        @Override
        public String get() {
            calls.incrementAndGet();
            started.countDown();
            hold(release);
            return value;
        }

        void awaitStarted() {
            hold(started);
        }

        int calls() {
            return calls.get();
        }
    }

    /** Counts the compute outcomes of every node. */
    protected static final class Outcomes implements LocksObserver {

        private final Map<ComputeResult, AtomicInteger> counts = new EnumMap<>(ComputeResult.class);

        Outcomes() {
            for (ComputeResult result : ComputeResult.values()) {
                counts.put(result, new AtomicInteger());
            }
        }

        @Override
        public void onCompute(ComputeResult result, long nanos) {
            counts.get(result).incrementAndGet();
        }

        public int count(ComputeResult result) {
            return counts.get(result).get();
        }
    }
}
