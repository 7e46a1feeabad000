package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.Threads;
import dev.locks.test.InMemoryLockServer;
import dev.locks.test.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine in front of a store that goes down (SPEC section 3; issue 9, observations 1 to 3), on a clock the
 * test moves: a lease moves forward only on a renewal the store confirmed, the watchdog never revives a lease
 * that ran out, and a release that could not reach the store is retried until it succeeds or the lease ran out.
 * A renewal that failed is tried again, with a short back-off, until it gets through or the confirmed lease ran
 * out (issue 27, observation 15: the JDBC watchdog gave up after one failed renewal and lost a live holder's key).
 */
class ConfirmedLeaseTest {

    private static final AcquireOptions THREE_SECONDS = AcquireOptions.defaults()
            .withLockTimeout(Duration.ofSeconds(3));

    /** What a holder gives up of a 3 s or 30 s store-backed lease: the margin's cap (1/20 of either is more). */
    private static final Duration MARGIN = Duration.ofNanos(LockTable.MAX_STORE_MARGIN_NANOS);

    private final List<LockEngine> engines = new ArrayList<>();

    @AfterEach
    void close() {
        engines.forEach(LockEngine::close);
    }

    private LockEngine engine(InMemoryLockServer server, LocksClock clock, boolean watchdog) {
        LockEngine engine = new LockEngine(new LockEngine.Settings("shared", AcquireOptions.defaults(), Duration.ZERO,
                100, watchdog, clock, LocksObserver.NONE), server.node(true));
        engines.add(engine);
        return engine;
    }

    @Test
    void renewalTheStoreDidNotConfirmShouldNotExtendTheLease() {
        ManualClock clock = new ManualClock();
        InMemoryLockServer server = new InMemoryLockServer(clock);
        LockEngine holder = engine(server, clock, true);
        LockEngine other = engine(server, clock, false);
        Lease lease = holder.acquire(List.of("k"), THREE_SECONDS);
        Instant acquiredAt = lease.acquiredAt();

        clock.advance(Duration.ofMillis(1100));
        holder.renewNow();
        Instant confirmed = lease.expiresAt();
        assertThat(confirmed).as("confirmed by the store, less the margin")
                .isEqualTo(acquiredAt.plusMillis(4100).minus(MARGIN));

        server.down(true);
        clock.advance(Duration.ofMillis(1100));
        holder.renewNow();
        assertThat(lease.expiresAt()).as("an unreachable store confirms nothing").isEqualTo(confirmed);
        clock.advance(Duration.ofMillis(1100));
        holder.renewNow();
        assertThat(lease.isHeld()).isTrue();
        clock.advance(Duration.ofMillis(800)); // the confirmed lease ended (a margin ago), the store's ends now
        assertThat(lease.isHeld()).as("not held once the confirmed lease ran out").isFalse();

        server.down(false);
        holder.renewNow();
        assertThat(lease.isHeld()).as("never revived").isFalse();
        assertThat(lease.expiresAt()).isEqualTo(confirmed);
        Lease taken = other.tryAcquire(List.of("k")).orElseThrow(); // the store's lease ran out too
        assertThat(lease.isHeld()).isFalse();
        lease.close();
        assertThat(taken.isHeld()).as("closing the lost lease released nothing").isTrue();
        taken.close();
    }

    @Test
    void releaseThatCouldNotReachTheStoreShouldBeRetriedUntilItSucceeds() {
        InMemoryLockServer server = new InMemoryLockServer(LocksClock.system());
        LockEngine holder = engine(server, LocksClock.system(), false);
        LockEngine other = engine(server, LocksClock.system(), false);
        Lease lease = holder.acquire(List.of("k"), AcquireOptions.defaults()); // a 30 s lock timeout
        server.down(true);
        lease.close();
        assertThat(server.keys()).contains("k");

        server.down(false);

        await().atMost(Duration.ofSeconds(10)).until(() -> !server.keys().contains("k")); // not the 30 s
        other.tryAcquire(List.of("k")).orElseThrow().close();
    }

    @Test
    void releaseRetriesShouldStopOnceTheLeaseRanOut() throws Exception {
        ManualClock clock = new ManualClock();
        InMemoryLockServer server = new InMemoryLockServer(clock);
        LockEngine holder = engine(server, clock, false);
        Lease lease = holder.acquire(List.of("k"), THREE_SECONDS);
        clock.advance(Duration.ofSeconds(3)); // ran out: nothing is left to free in the store
        server.down(true);
        lease.close();
        server.down(false);

        Thread.sleep(2 * RemoteLocks.MAX_RETRY_NANOS / 1_000_000); // longer than the longest back-off

        assertThat(server.calls("release")).as("no retry for a lease that ran out").isZero();
    }

    @Test
    void failedRenewalShouldBeTriedAgainUntilTheStoreAnswersWithinTheLease() throws Exception {
        ManualClock clock = new ManualClock();
        InMemoryLockServer server = new InMemoryLockServer(clock);
        LockEngine holder = engine(server, clock, true); // its own passes every 10 s: none during this test
        LockEngine other = engine(server, clock, false);
        Lease lease = holder.acquire(List.of("k"), AcquireOptions.defaults()); // a 30 s lock timeout
        Instant acquiredAt = lease.acquiredAt();
        clock.advance(Duration.ofSeconds(11));

        server.down(true); // connections killed: this pass fails, and so do the next tries for a while
        holder.renewNow();
        Thread.sleep(300);
        assertThat(lease.expiresAt()).isEqualTo(acquiredAt.plusSeconds(30).minus(MARGIN));
        server.down(false);

        await().atMost(Duration.ofSeconds(5))
                .until(() -> lease.expiresAt().isAfter(acquiredAt.plusSeconds(30).minus(MARGIN)));
        assertThat(lease.expiresAt()).as("renewed as of the retry").isEqualTo(acquiredAt.plusSeconds(41).minus(MARGIN));
        clock.advance(Duration.ofSeconds(25)); // past the lease it had when the pass failed
        assertThat(lease.isHeld()).isTrue();
        assertThat(other.tryAcquire(List.of("k"))).as("still the holder's").isEmpty();
        lease.close();
    }

    @Test
    void renewalRetriesShouldStopOnceTheConfirmedLeaseRanOut() throws Exception {
        ManualClock clock = new ManualClock();
        InMemoryLockServer server = new InMemoryLockServer(clock);
        LockEngine holder = engine(server, clock, true);
        Lease lease = holder.acquire(List.of("k"), AcquireOptions.defaults());
        Instant confirmed = lease.expiresAt();
        clock.advance(Duration.ofSeconds(11));
        server.down(true);
        holder.renewNow();
        clock.advance(Duration.ofSeconds(19)); // the confirmed lease ends now
        server.down(false);
        int renewals = server.calls("renew");

        Thread.sleep(2 * RemoteLocks.MAX_RETRY_NANOS / 1_000_000); // longer than the longest back-off

        assertThat(server.calls("renew")).as("no retry for a lease that ran out").isEqualTo(renewals);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.expiresAt()).as("never revived").isEqualTo(confirmed);
    }
}
