package dev.locks.internal;

import static dev.locks.contract.ComputeCacheCallers.PATIENCE;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.LocksClock;
import dev.locks.contract.ComputeCacheCallers;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a settled flight lets its waiters go: each reads the result and returns without taking the flight's lock
 * again, so that they leave together rather than one after the other through the lock (the stampede's
 * fan-out, docs/benchmarks.md).
 */
class FlightFanOutTest {

    private static final int WAITERS = 50;
    private static final ComputeOptions OPTIONS = ComputeOptions.defaults();

    private final ComputeCacheCallers callers = new ComputeCacheCallers();

    @AfterEach
    void stopCallers() throws InterruptedException {
        callers.close();
    }

    @Test
    void waitersShouldReturnTheResultWhileTheFlightsLockIsStillHeld() throws Exception {
        Flight flight = new Flight("k", "m1", "", OPTIONS, new FlightClock(LocksClock.system()));
        String ticket = flight.firstTurn().ticket().id();
        List<Future<ComputeOutcome>> waiters = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            waiters.add(callers.start("waiter-" + i, () -> flight.await(OPTIONS)));
        }
        await().atMost(PATIENCE).until(() -> flight.describe().waiters() == WAITERS);

        ReentrantLock lock = lockOf(flight);
        lock.lock(); // held by this thread across the settlement (reentrant) and after it
        try {
            assertThat(flight.complete(ticket, "v", null, null)).isNotNull();
            for (Future<ComputeOutcome> waiter : waiters) {
                assertThat(result(waiter)).as("served without the lock").isEqualTo(new ComputeOutcome.Value("v"));
            }
        } finally {
            lock.unlock();
        }
        assertThat(flight.isOver()).isTrue();
    }

    private static ReentrantLock lockOf(Flight flight) throws ReflectiveOperationException {
        Field lock = Flight.class.getDeclaredField("lock");
        lock.setAccessible(true);
        return (ReentrantLock) lock.get(flight);
    }
}
