package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.AcquireOptions;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.Remover;
import dev.locks.test.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Stale removal is conditional on the entry that was judged stale, never on the key alone. */
class LockTableTest {

    private static final long SECOND = 1_000_000_000L;

    private final ManualClock clock = new ManualClock();
    private final LockEngine engine = new LockEngine(new LockEngine.Settings("local", AcquireOptions.defaults(),
            Duration.ZERO, 100, false, clock, LocksObserver.NONE));
    private final LockTable table = new LockTable((entry, reason, by) -> { });

    private LockEntry take(String key, long timeoutNanos) {
        TableLease lease = new TableLease(engine, new String[] {key}, clock.nanoTime(), null);
        assertThat(table.take(key, Thread.currentThread(), lease, 0, clock.nanoTime(), timeoutNanos)).isNull();
        return lease.entries[0];
    }

    @Test
    void entryRenewedAfterItWasJudgedStaleShouldSurvive() {
        LockEntry entry = take("k", SECOND);
        clock.advance(Duration.ofSeconds(1));
        long judgedAt = clock.nanoTime();
        assertThat(entry.staleReason(judgedAt)).isNotNull();

        long watchdogsReading = judgedAt - 50_000_000L; // the renewal read the clock before the lease ran out
        assertThat(table.renew(entry, watchdogsReading, watchdogsReading)).isTrue();

        assertThat(table.removeIfStale(entry, judgedAt, Remover.SWEEP)).isFalse();
        assertThat(table.get("k")).isSameAs(entry);
        assertThat(entry.isLost()).isFalse();
    }

    @Test
    void leaseThatRanOutShouldNeverBeRenewed() {
        LockEntry entry = take("k", SECOND);
        long sent = clock.nanoTime() + 900_000_000L;
        clock.advance(Duration.ofSeconds(1));
        long expiry = entry.expiresNanos();

        assertThat(table.renew(entry, sent, clock.nanoTime())).as("confirmed only after it ran out").isFalse();
        assertThat(table.renew(entry, clock.nanoTime(), clock.nanoTime())).isFalse();
        assertThat(entry.expiresNanos()).isEqualTo(expiry);
    }

    @Test
    void lockTakenByAnotherAfterTheJudgementShouldSurvive() {
        LockEntry judged = take("k", SECOND);
        clock.advance(Duration.ofSeconds(2));
        assertThat(table.removeIfStale(judged, clock.nanoTime(), Remover.ACQUIRE)).isTrue();
        LockEntry successor = take("k", SECOND);

        assertThat(table.removeIfStale(judged, clock.nanoTime(), Remover.SWEEP)).isFalse();

        assertThat(table.get("k")).isSameAs(successor);
        assertThat(judged.isLost()).isTrue();
        assertThat(successor.isLost()).isFalse();
    }

    @Test
    void releasedEntryShouldTurnLateWaitersAway() {
        LockEntry entry = take("k", SECOND);
        Waiter early = new Waiter(Thread.currentThread());
        assertThat(entry.addWaiter(early)).isTrue();

        table.drop(entry);

        assertThat(table.get("k")).isNull();
        assertThat(early.await(0)).isFalse();
        assertThat(entry.addWaiter(new Waiter(Thread.currentThread()))).isFalse();
    }

    /**
     * A waiter's link belongs to the one list it joined: relinking it into another (a remote list of the same
     * key, say) once cut lists short and could close one into a cycle, which made a release loop forever.
     */
    @Test
    void waiterShouldNeverJoinASecondList() {
        LockEntry entry = take("k", SECOND);
        RemoteWaiters remote = new RemoteWaiters();
        Blocker elsewhere = remote.blocker("k", remote.epoch("k"));
        Waiter waiter = new Waiter(Thread.currentThread());
        assertThat(entry.addWaiter(waiter)).isTrue();

        assertThat(entry.isWaiting(waiter)).isTrue();
        assertThat(elsewhere.isWaiting(waiter)).isFalse();
        assertThat(elsewhere.addWaiter(waiter)).as("not relinked: try again at once instead").isFalse();
        assertThatThrownBy(() -> take("other", SECOND).addWaiter(waiter)).isInstanceOf(IllegalStateException.class);
        Waiter fresh = new Waiter(Thread.currentThread());
        assertThat(elsewhere.addWaiter(fresh)).isTrue();
        assertThat(elsewhere.isWaiting(fresh)).isTrue();

        remote.released("k");
        table.drop(entry);
        assertThat(fresh.isSignalled()).isTrue();
        assertThat(waiter.isSignalled()).isTrue();
        assertThat(entry.isWaiting(waiter)).isFalse();
    }

    @Test
    void deadlineShouldSaturateInsteadOfOverflowing() {
        assertThat(LockEntry.deadline(Long.MAX_VALUE - 5, 10)).isEqualTo(Long.MAX_VALUE);
        assertThat(LockEntry.deadline(100, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(LockEntry.deadline(100, 10)).isEqualTo(110);
    }
}
