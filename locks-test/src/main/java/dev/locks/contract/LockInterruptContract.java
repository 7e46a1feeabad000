package dev.locks.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC section 3, "Interrupts", on every backend: the first attempt is always made (an interrupted thread
 * still takes free keys, and a backend round trip never fails because of the interrupt status), a thread that
 * is or becomes interrupted when it would have to wait stops at once with {@link CancellationException}
 * (status kept, nothing held), and {@code tryAcquire} ignores the status. A backend subclasses this.
 */
public abstract class LockInterruptContract {

    /** Waits that only an interrupt (or a release) can end within a test. */
    private static final AcquireOptions FOREVER = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMinutes(5));

    protected LockRegistry registry;
    private final Threads threads = new Threads();

    /** A new, empty registry of the backend under test. */
    protected abstract LockRegistry newRegistry();

    /** How many interrupted waiters {@link #interruptedWaitersShouldStopAtOnceHoldingNothing} runs. */
    protected int waiters() {
        return 500;
    }

    @BeforeEach
    void setUpInterrupts() {
        registry = newRegistry();
    }

    @AfterEach
    void tearDownInterrupts() throws Exception {
        threads.close();
        if (registry instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Test
    void interruptedThreadShouldStillTakeFreeKeysAndKeepItsStatus() throws Exception {
        Logger library = Logger.getLogger("dev.locks"); // System.Logger's default backend: no false warning
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        library.addHandler(handler);
        try {
            takeFreeKeysInterrupted();
        } finally {
            library.removeHandler(handler);
        }
        assertThat(warnings).as("no 'could not release' or any other warning").isEmpty();
    }

    private void takeFreeKeysInterrupted() throws Exception {
        threads.run(() -> {
            for (int i = 0; i < 300; i++) {
                List<String> keys = i % 2 == 0 ? List.of("free-" + i) : List.of("free-" + i, "other-" + i);
                Thread.currentThread().interrupt();
                Lease lease = registry.acquire(keys, FOREVER);
                assertThat(Thread.currentThread().isInterrupted()).as("status kept after acquire").isTrue();
                assertThat(lease.isHeld()).isTrue();
                lease.close();
                assertThat(Thread.currentThread().isInterrupted()).as("status kept after close").isTrue();
                assertThat(registry.heldLock(keys.get(0))).as("really released, at once").isEmpty();
                Thread.interrupted();
            }
            return null;
        });
        assertThat(registry.heldLocks()).isEmpty();
    }

    @Test
    void tryAcquireShouldIgnoreTheInterruptStatus() throws Exception {
        threads.run(() -> {
            for (int i = 0; i < 300; i++) {
                Thread.currentThread().interrupt();
                Optional<Lease> lease = registry.tryAcquire(List.of("try-" + i % 7));
                assertThat(lease).isPresent();
                lease.get().close();
                assertThat(Thread.interrupted()).as("status kept").isTrue();
            }
            return null;
        });
        assertThat(registry.heldLocks()).isEmpty();
    }

    @Test
    void interruptedThreadShouldNotWaitForAHeldKey() throws Exception {
        try (Lease held = registry.acquire(List.of("held"))) {
            Boolean statusKept = threads.run(() -> {
                Thread.currentThread().interrupt();
                try {
                    registry.acquire(List.of("free", "held"), FOREVER).close();
                    return null;
                } catch (CancellationException expected) {
                    return Thread.currentThread().isInterrupted();
                }
            });
            assertThat(statusKept).as("CancellationException, status kept").isTrue();
            assertThat(registry.heldLock("free")).as("nothing held").isEmpty();
            assertThat(held.isHeld()).isTrue();
        }
    }

    @Test
    void interruptedWaitersShouldStopAtOnceHoldingNothing() throws Exception {
        int count = waiters();
        Lease held = registry.acquire(List.of("hot"));
        CountDownLatch started = new CountDownLatch(count);
        List<Thread> waiting = new ArrayList<>();
        List<Future<Boolean>> outcomes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            List<String> keys = i % 3 == 0 ? List.of("hot") : List.of("hot", "cold-" + i);
            CountDownLatch mine = new CountDownLatch(1);
            Thread[] self = new Thread[1];
            outcomes.add(threads.start(() -> {
                self[0] = Thread.currentThread();
                mine.countDown();
                started.countDown();
                try {
                    registry.acquire(keys, FOREVER).close();
                    return false;
                } catch (CancellationException expected) {
                    return Thread.currentThread().isInterrupted();
                }
            }));
            mine.await();
            waiting.add(self[0]);
        }
        assertThat(started.await(Threads.BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        for (Thread thread : waiting) { // some are still in their first attempt, most are parked
            thread.interrupt();
        }

        long start = System.nanoTime();
        for (Future<Boolean> outcome : outcomes) {
            assertThat(Threads.get(outcome)).as("CancellationException with the status kept").isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not the 5-minute retry interval")
                .isLessThan(Threads.BOUND);
        assertThat(registry.heldLocks()).as("only the holder's key").hasSize(1);
        held.close();
        assertThat(registry.tryAcquire(List.of("hot", "cold-1"))).isPresent().get().satisfies(Lease::close);
    }
}
