package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LocksObserver.StaleReason;
import dev.locks.local.LocalLockRegistry;
import dev.locks.test.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The coarse clock of in-memory acquires ({@link CoarseClock}): a lease it stamps is never judged stale before its
 * lock timeout has passed since it was taken, even when a tick was late; its ticker leaves no thread behind; and a
 * registry on any other clock reads that clock.
 */
class CoarseClockTest {

    private static final long MILLI = 1_000_000L;

    private final CoarseClock clock = new CoarseClock("coarse-clock-test");
    private final WaitQueues queues = new WaitQueues(true);
    private final LockTable table = new LockTable((entry, reason, by) -> { }, queues, Long.MAX_VALUE, false, clock);
    private final LockEngine engine = new LockEngine(new LockEngine.Settings("local", AcquireOptions.defaults(),
            Duration.ZERO, 100, false, new ManualClock(), dev.locks.LocksObserver.NONE));

    /** Takes {@code key} in the test's table as of {@code stamp}, under {@code timeoutNanos}. */
    private LockEntry take(String key, long stamp, long timeoutNanos) {
        TableLease lease = new TableLease(engine.leaseHost, new String[] {key}, stamp, timeoutNanos, 0, null);
        assertThat(table.take(key, Thread.currentThread(), true, lease, 0, stamp, timeoutNanos)).isNull();
        return lease.entries[0];
    }

    @Test
    void stampShouldBeTheLastTickRoundedUpByTheSlack() {
        clock.tickNow();
        long before = System.nanoTime();
        long stamp = clock.stamp();
        long after = System.nanoTime();
        assertThat(stamp - after).as("never more than the slack ahead").isLessThanOrEqualTo(CoarseClock.SLACK_NANOS);
        if (after - before < CoarseClock.TICK_NANOS) { // the tick just taken: the stamp is not before the read
            assertThat(clock.acquiredAtMost(stamp, after)).isGreaterThanOrEqualTo(before);
        }
    }

    /**
     * A tick that lasted longer than the slack (its ticker descheduled): a stamp read late in it is early, and the
     * lease it stamped looks expired already; the table judges it by when the tick ended instead, so that it is
     * stale only once its lock timeout has passed since then, never before.
     */
    @Test
    void leaseStampedInALateTickShouldNotBeJudgedStaleBeforeItsTimeoutAndShouldBeOnceItPassedAfterTheTickEnded()
            throws InterruptedException {
        long timeout = 200 * MILLI;
        clock.tickNow();
        Thread.sleep(250); // a late tick: nobody replaces it
        long before = System.nanoTime();
        long stamp = clock.stamp();
        assertThat(before - stamp).as("the stamp is early").isGreaterThan(timeout);
        LockEntry entry = take("k", stamp, timeout);
        assertThat(entry.isExpired(System.nanoTime())).as("by its stamp alone it would be stale").isTrue();

        StaleReason whileCurrent = table.staleReason(entry, System.nanoTime());
        boolean inTime = System.nanoTime() - before < timeout;
        clock.tickNow(); // the late tick ends
        long ended = System.nanoTime();
        StaleReason afterItEnded = table.staleReason(entry, System.nanoTime());
        boolean stillInTime = System.nanoTime() - before < timeout;
        if (inTime) {
            assertThat(whileCurrent).as("judged before its timeout passed, its tick the last one").isNull();
        }
        if (stillInTime) {
            assertThat(afterItEnded).as("judged before its timeout passed, its tick over").isNull();
            assertThat(table.liveHolder("k", System.nanoTime())).isSameAs(entry);
        }
        assertThat(clock.acquiredAtMost(stamp, Long.MAX_VALUE / 2)).as("judged by when its tick ended, not later")
                .isBetween(before, ended);

        while (System.nanoTime() - ended < timeout + MILLI) {
            Thread.sleep(5);
        }
        assertThat(table.staleReason(entry, System.nanoTime())).as("stale once its timeout passed after its tick")
                .isEqualTo(StaleReason.EXPIRED);
    }

    @Test
    void stampOfATickThatKeptItsPaceShouldBeJudgedByItselfHoweverLateTheJudgment() {
        clock.tickNow();
        long stamp = clock.stamp();
        clock.tickNow();
        long replaced = System.nanoTime();
        assertThat(clock.acquiredAtMost(stamp, Long.MAX_VALUE / 2)).as("at most a slack after the tick it read")
                .isLessThanOrEqualTo(Math.max(stamp, replaced));
    }

    @Test
    void tickerShouldStartWithTheFirstStampParkWhenUnusedAndEndWithItsLastUser() {
        // a clock of its own that idles after 10 ticks, not 1,000: on a busy machine 1 ms parks stretch to tens of
        // ms, and two spells of 1,000 of them once took longer than a minute
        CoarseClock clock = new CoarseClock("coarse-clock-idle-test", 10);
        assertThat(clock.ticker()).isNull();
        clock.use();
        clock.use();
        assertThat(clock.ticker()).as("started lazily").isNull();
        clock.stamp();
        Thread ticker = clock.ticker();
        assertThat(ticker).isNotNull();
        assertThat(ticker.isDaemon()).isTrue();
        await().atMost(Duration.ofSeconds(60)).until(() -> ticker.getState() == Thread.State.WAITING); // idle: parked
        long woken = clock.stamp();
        assertThat(woken).as("after idling, a precise reading").isLessThanOrEqualTo(System.nanoTime());
        assertThat(clock.ticker()).isSameAs(ticker);

        clock.release();
        assertThat(clock.ticker()).as("one user left").isSameAs(ticker);
        assertThat(ticker.isAlive()).isTrue();
        clock.release();
        assertThat(clock.ticker()).isNull();
        assertThat(ticker.isAlive()).as("ended and joined by the last release").isFalse();
        long after = clock.stamp();
        assertThat(clock.ticker()).as("nobody uses it: a stamp reads the clock, and starts nothing").isNull();
        assertThat(after).isLessThanOrEqualTo(System.nanoTime());
    }

    @Test
    void manyRegistriesShouldShareOneTickerAndLeaveNoThreadOnceClosed() {
        int before = CoarseClock.SHARED.users();
        List<LocalLockRegistry> registries = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            LocalLockRegistry registry = LocalLockRegistry.builder().preciseClock(false).cleanupInterval(Duration.ZERO)
                    .build();
            registries.add(registry);
            registry.acquire(List.of("k")).close();
        }
        assertThat(CoarseClock.SHARED.users()).isEqualTo(before + 20);
        assertThat(tickers()).as("one per JVM").hasSizeLessThanOrEqualTo(1);
        registries.get(0).close();
        registries.get(0).close(); // twice: counted once
        for (LocalLockRegistry registry : registries) {
            registry.close();
        }
        assertThat(CoarseClock.SHARED.users()).isEqualTo(before);
        assumeThat(before).as("no registry of another test left open").isZero();
        assertThat(CoarseClock.SHARED.ticker()).isNull();
        assertThat(tickers()).as("no thread left behind").isEmpty();
    }

    private static List<Thread> tickers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().equals("locks-coarse-clock") && thread.isAlive()).toList();
    }

    @Test
    void preciseRegistriesAndOtherClocksShouldNotUseTheCoarseClock() {
        int before = CoarseClock.SHARED.users();
        ManualClock manual = new ManualClock();
        try (LocalLockRegistry precise = LocalLockRegistry.builder().preciseClock(true).build();
                LocalLockRegistry onManual = LocalLockRegistry.builder().preciseClock(false).clock(manual).build()) {
            assertThat(CoarseClock.SHARED.users()).isEqualTo(before);
            precise.acquire(List.of("k")).close();

            Lease lease = onManual.acquire(List.of("k"), AcquireOptions.defaults().withLockTimeout(Duration.ofSeconds(5)));
            assertThat(lease.acquiredAt()).as("the manual clock's time, exactly").isEqualTo(manual.instant());
            manual.advance(Duration.ofSeconds(5).minusNanos(1));
            assertThat(other(() -> onManual.tryAcquire(List.of("k")))).as("a nanosecond before its timeout").isEmpty();
            manual.advance(Duration.ofNanos(1));
            Optional<Lease> next = other(() -> onManual.tryAcquire(List.of("k")));
            assertThat(next).as("stale exactly at its timeout").isPresent();
            assertThat(next.get().acquiredAt()).isEqualTo(manual.instant());
            next.get().close();
        }
    }

    /**
     * The registry's own guarantee, on the shared coarse clock: another thread takes a key whose holder lives only
     * once the holder's lock timeout has passed since it called acquire, never before.
     */
    @Test
    void keyOfALiveHolderShouldNeverBeTakenBeforeItsLockTimeout() {
        Duration timeout = Duration.ofMillis(20);
        try (LocalLockRegistry registry = LocalLockRegistry.builder().preciseClock(false)
                .cleanupInterval(Duration.ZERO).build()) {
            for (int i = 0; i < 25; i++) {
                long before = System.nanoTime();
                Lease held = registry.acquire(List.of("k"), AcquireOptions.defaults().withLockTimeout(timeout));
                long taken = other(() -> {
                    for (;;) {
                        Optional<Lease> lease = registry.tryAcquire(List.of("k"));
                        if (lease.isPresent()) {
                            long at = System.nanoTime();
                            lease.get().close();
                            return at;
                        }
                        LockSupport.parkNanos(100_000);
                    }
                });
                assertThat(taken - before).as("taken after its lock timeout, attempt %d", i)
                        .isGreaterThanOrEqualTo(timeout.toNanos());
                assertThat(held.isHeld()).isFalse();
                held.close();
            }
        }
    }

    /** Runs {@code action} on another thread (so that it does not re-enter the test thread's locks). */
    private static <T> T other(java.util.concurrent.Callable<T> action) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(action.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        thread.start();
        try {
            return result.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
