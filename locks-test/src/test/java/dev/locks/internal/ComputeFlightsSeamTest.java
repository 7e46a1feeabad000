package dev.locks.internal;

import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.Computation;
import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.test.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a distributed backend uses of the node-local single flight: flights without a store, a computer that is
 * untimed while it waits for another node, its turn passed on, a flight settled with an outcome decided
 * elsewhere, and the backend's state kept with the flight.
 */
class ComputeFlightsSeamTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final ComputeOptions OPTIONS = ComputeOptions.defaults().withComputeTimeout(TIMEOUT);

    private final ManualClock clock = new ManualClock();
    private final ComputeFlights flights = new ComputeFlights(clock);
    private final ComputeCacheCallers callers = new ComputeCacheCallers();

    @AfterEach
    void stopCallers() throws InterruptedException {
        callers.close();
    }

    @Test
    void firstCallerWithoutAStoreShouldGetTheTurnAtOnceAndCompleteStoresNothing() {
        ComputeTicket ticket = computer("k");

        assertThat(flights.complete(ticket, "v", null)).isNotNull();
        assertThat(computer("k")).as("nothing stored: the next caller computes").isNotEqualTo(ticket);
    }

    @Test
    void untimedComputerShouldNotBeReplacedUntilRetimed() throws InterruptedException {
        ComputeTicket first = computer("k");
        Future<ComputeOutcome> waiter = waiter("bob", "k");
        assertThat(flights.retime(first, null)).isTrue();

        clock.advance(TIMEOUT.multipliedBy(10));
        Thread.sleep(3 * FlightClock.SLICE_MILLIS); // the waiter reads the clock after each slice
        assertThat(waiter).as("it waits for another node: not overdue").isNotDone();
        assertThat(flights.snapshot()).hasSize(1);

        assertThat(flights.retime(first, TIMEOUT)).isTrue();
        Instant started = clock.instant();
        assertThat(flights.snapshot()).singleElement().extracting(Computation::startedAt).isEqualTo(started);
        clock.advance(TIMEOUT);
        assertThat(result(waiter)).isInstanceOf(ComputeOutcome.Compute.class);
        assertThat(flights.retime(first, TIMEOUT)).as("no longer the current computer").isFalse();
    }

    @Test
    void handOverShouldPromoteTheOldestWaiterAtOnceOrEndAFlightNobodyWaitsFor() {
        ComputeTicket first = computer("k");
        Future<ComputeOutcome> bob = waiter("bob", "k");
        flights.retime(first, null);

        assertThat(flights.handOver(first)).isTrue();

        ComputeOutcome.Compute promoted = (ComputeOutcome.Compute) result(bob);
        assertThat(flights.handOver(first)).as("not its turn any more").isFalse();
        assertThat(flights.handOver(promoted.ticket())).as("nobody waits: the flight ends").isFalse();
        assertThat(flights.size()).isZero();
    }

    @Test
    void settleShouldAcceptAnyComputerOfTheFlightAndNothingAfterwards() {
        ComputeTicket first = computer("k");
        Future<ComputeOutcome> bob = waiter("bob", "k");
        clock.advance(TIMEOUT);
        ComputeOutcome.Compute promoted = (ComputeOutcome.Compute) result(bob);
        Future<ComputeOutcome> carol = waiter("carol", "k");
        IllegalStateException error = new IllegalStateException("decided elsewhere");

        assertThat(flights.settle(new ComputeTicket("k", "forged/0"), new ComputeOutcome.Failed(error))).isFalse();
        assertThat(flights.settle(first, new ComputeOutcome.Failed(error))).as("a demoted computer's ticket").isTrue();

        assertThat(result(carol)).isEqualTo(new ComputeOutcome.Failed(error));
        assertThat(flights.settle(promoted.ticket(), new ComputeOutcome.Value("late"))).isFalse();
        assertThat(flights.size()).isZero();
    }

    @Test
    void attachmentShouldLiveAsLongAsItsFlight() {
        ComputeTicket first = computer("k");
        RemoteComputeFlight state = new RemoteComputeFlight(first);

        assertThat(flights.attach(first, state)).isTrue();
        assertThat(flights.attachment(first)).isSameAs(state);
        assertThat(flights.attachment("k")).isSameAs(state);
        assertThat(flights.attachment(new ComputeTicket("k", "forged/0"))).isNull();

        flights.settle(first, new ComputeOutcome.Value("v"));
        assertThat(flights.attachment("k")).isNull();
        assertThat(flights.attachment(first)).isNull();
        assertThat(flights.attach(first, state)).isFalse();
    }

    @Test
    void invalidatedFlightShouldStillSettleItsWaitersByTicketWhileLaterCallersStartANewOne() {
        ComputeTicket old = computer("k");
        RemoteComputeFlight oldState = new RemoteComputeFlight(old);
        flights.attach(old, oldState);
        Future<ComputeOutcome> joinedBefore = waiter("bob", "k");

        flights.invalidate("k");

        ComputeTicket fresh = computer("k");
        assertThat(fresh).as("a later caller starts a new miss").isNotEqualTo(old);
        RemoteComputeFlight newState = new RemoteComputeFlight(fresh);
        flights.attach(fresh, newState);
        assertThat(flights.attachment("k")).isEqualTo(newState);
        assertThat(flights.attachments("k")).containsExactly(newState, oldState);
        assertThat(flights.attachment(old)).as("the old ticket still reaches its flight").isEqualTo(oldState);
        assertThat(flights.size()).isEqualTo(2);
        assertThat(flights.settle(old, new ComputeOutcome.Value("old"))).isTrue();
        assertThat(result(joinedBefore)).isEqualTo(new ComputeOutcome.Value("old"));
        assertThat(flights.attachments("k")).containsExactly(newState);
        assertThat(flights.settle(fresh, new ComputeOutcome.Value("new"))).isTrue();
        assertThat(flights.size()).isZero();
    }

    private ComputeTicket computer(String key) {
        return ((ComputeOutcome.Compute) flights.join(key, "", OPTIONS)).ticket();
    }

    private Future<ComputeOutcome> waiter(String name, String key) {
        int before = flights.snapshot().stream().mapToInt(Computation::waiters).sum();
        Future<ComputeOutcome> waiter = callers.start(name, () -> flights.join(key, "", OPTIONS));
        await().atMost(ComputeCacheCallers.PATIENCE).until(
                () -> flights.snapshot().stream().mapToInt(Computation::waiters).sum() == before + 1);
        return waiter;
    }
}
