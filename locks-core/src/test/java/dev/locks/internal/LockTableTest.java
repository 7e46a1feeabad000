package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.Remover;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Stale removal is conditional on the entry that was judged stale, never on the key alone. */
class LockTableTest {

    private static final long SECOND = 1_000_000_000L;

    /** The time the table is told, in nanoseconds: the table reads no clock of its own. */
    private long now = SECOND;
    private final LockEngine engine = new LockEngine(new LockEngine.Settings("local", AcquireOptions.defaults(),
            Duration.ZERO, 100, false, LocksClock.system(), LocksObserver.NONE));
    private final WaitQueues queues = new WaitQueues(true);
    private final LockTable table = new LockTable((entry, reason, by) -> { }, queues, Long.MAX_VALUE, false);

    private LockEntry take(String key, long timeoutNanos) {
        TableLease lease = new TableLease(engine.leaseHost, new String[] {key}, now, timeoutNanos, 0, null);
        assertThat(table.take(key, Thread.currentThread(), true, lease, 0, now, timeoutNanos)).isNull();
        return lease.entries[0];
    }

    @Test
    void entryRenewedAfterItWasJudgedStaleShouldSurvive() {
        LockEntry entry = take("k", SECOND);
        now += SECOND;
        long judgedAt = now;
        assertThat(entry.staleReason(judgedAt)).isNotNull();

        long watchdogsReading = judgedAt - 50_000_000L; // the renewal read the clock before the lease ran out
        assertThat(table.renew(entry, watchdogsReading, watchdogsReading)).isTrue();

        assertThat(table.removeIfStale(entry, judgedAt, Remover.SWEEP)).isFalse();
        assertThat(table.get("k")).isSameAs(entry);
        assertThat(entry.isLost()).isFalse();
    }

    /**
     * Issue 27, observation 12: a holder whose store ends its lease by the store's own clock believes in a little
     * less than the store grants, so that {@code isHeld()} turns false before the store may give the key away.
     */
    @Test
    void storeBackedLeaseShouldEndASafetyMarginBeforeTheStoreEndsIt() {
        LockTable store = new LockTable((entry, reason, by) -> { }, queues, 30 * SECOND, true);
        assertThat(store.leaseNanos(SECOND)).isEqualTo(SECOND - SECOND / 20);
        assertThat(store.leaseNanos(3 * SECOND)).as("at most 100 ms").isEqualTo(3 * SECOND - 100_000_000L);
        assertThat(store.leaseNanos(Long.MAX_VALUE)).as("an infinite timeout under the store's lease")
                .isEqualTo(30 * SECOND - 100_000_000L);
        assertThat(table.leaseNanos(SECOND)).as("in memory the table is the store: no margin").isEqualTo(SECOND);
        assertThat(table.leaseNanos(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void leaseThatRanOutShouldNeverBeRenewed() {
        LockEntry entry = take("k", SECOND);
        long sent = now + 900_000_000L;
        now += SECOND;
        long expiry = entry.expiresNanos();

        assertThat(table.renew(entry, sent, now)).as("confirmed only after it ran out").isFalse();
        assertThat(table.renew(entry, now, now)).isFalse();
        assertThat(entry.expiresNanos()).isEqualTo(expiry);
    }

    @Test
    void lockTakenByAnotherAfterTheJudgementShouldSurvive() {
        LockEntry judged = take("k", SECOND);
        now += 2 * SECOND;
        assertThat(table.removeIfStale(judged, now, Remover.ACQUIRE)).isTrue();
        LockEntry successor = take("k", SECOND);

        assertThat(table.removeIfStale(judged, now, Remover.SWEEP)).isFalse();

        assertThat(table.get("k")).isSameAs(successor);
        assertThat(judged.isLost()).isTrue();
        assertThat(successor.isLost()).isFalse();
    }

    @Test
    void releasedEntryShouldWakeItsOldestWaiterAndTurnLateWaitersAway() {
        LockEntry entry = take("k", SECOND);
        Waiter older = queues.newWaiter(new String[] {"k"});
        Waiter newer = queues.newWaiter(new String[] {"k"});
        queues.enlist(newer, 0, 1, true);
        queues.enlist(older, 0, 1, true);
        int seen = older.signals();

        table.drop(entry);

        assertThat(table.get("k")).isNull();
        assertThat(older.signals()).as("the oldest waiter is woken").isNotEqualTo(seen);
        assertThat(newer.signals()).as("the key is the oldest's first").isZero();
        assertThat(entry.released()).as("a waiter that joins late tries again at once").isTrue();
    }

    /** A waiter that leaves (it got its keys, or gave up) leaves nothing behind, and wakes the next one. */
    @Test
    void leavingWaiterShouldWakeTheNextAndLeaveNoQueueBehind() {
        Waiter first = queues.newWaiter(new String[] {"a", "b"});
        Waiter second = queues.newWaiter(new String[] {"b"});
        queues.enlist(first, 0, 2, true);
        queues.enlist(second, 0, 1, true);
        assertThat(queues.olderWaits("b", second.order)).isTrue();
        assertThat(queues.olderWaits("b", first.order)).isFalse();

        queues.enlist(first, 0, 1, true); // blocked at an earlier key now: it no longer claims "b"
        assertThat(second.signals()).isEqualTo(1);
        assertThat(queues.olderWaits("b", second.order)).isFalse();

        queues.leave(first);
        queues.leave(second);
        assertThat(queues.size()).isZero();
        assertThat(queues.isEmpty()).isTrue();
    }

    @Test
    void deadlineShouldSaturateInsteadOfOverflowing() {
        assertThat(LockEntry.deadline(Long.MAX_VALUE - 5, 10)).isEqualTo(Long.MAX_VALUE);
        assertThat(LockEntry.deadline(100, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(LockEntry.deadline(100, 10)).isEqualTo(110);
    }
}
