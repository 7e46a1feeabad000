package dev.locks.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.contract.HeapGrowth;
import dev.locks.contract.Starvation;
import dev.locks.contract.Threads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** SPEC "No starvation" and "Nothing left behind" on the in-memory backend. */
class LocalFairnessTest {

    private final Threads threads = new Threads();
    private final LocalLockRegistry registry = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).build();

    @AfterEach
    void tearDown() {
        threads.close();
        registry.close();
    }

    @Test
    void threeKeyWaiterShouldGetItsKeysAgainstAStreamOfOneKeyCallers() throws Exception {
        Duration waited = Starvation.threeKeyWaiterAgainstStreams(threads, List.of(registry), 15,
                Duration.ofNanos(50_000), Duration.ofSeconds(20));

        assertThat(waited).isLessThan(Duration.ofSeconds(20));
        assertThat(registry.heldLocks()).isEmpty();
    }

    @Test
    void oldestWaiterOfAKeyShouldGetItBeforeANewerAcquirer() throws Exception {
        Lease holder = registry.acquire(List.of("k"));
        Future<Lease> oldest = waiterBehind(holder);

        holder.close();
        assertThat(registry.tryAcquire(List.of("k"))).as("the key is the waiter's first, taken or not yet").isEmpty();

        Lease taken = Threads.get(oldest);
        assertThat(taken.fencingToken()).isGreaterThan(holder.fencingToken());
        taken.close();
    }

    @Test
    void acquireDetachedIfFreeShouldLeaveAFreedKeyToTheCallerThatWaitedForItLonger() throws Exception {
        Lease holder = registry.acquire(List.of("k"));
        Future<Lease> oldest = waiterBehind(holder);

        holder.close();
        assertThat(registry.acquireDetachedIfFree(List.of("k"), AcquireOptions.defaults()))
                .as("the key is the waiter's first, taken or not yet: the reactive @Locked's first try on the "
                        + "subscriber's thread is a newcomer like any other").isEmpty();

        Threads.get(oldest).close();
        registry.acquireDetachedIfFree(List.of("k"), AcquireOptions.defaults()).orElseThrow().close();
    }

    @Test
    void failedAttemptsOnAHeldKeyShouldNotGrowTheHeap() throws Exception {
        Lease holder = threads.run(() -> registry.acquire(List.of("held")));
        AcquireOptions impatient = AcquireOptions.defaults().withRetries(1)
                .withRetryInterval(attempt -> Duration.ofNanos(1));
        Runnable fail = () -> {
            for (int i = 0; i < 100_000; i++) {
                assertThatThrownBy(() -> registry.acquire(List.of("held"), impatient))
                        .isInstanceOf(LockTimeoutException.class);
            }
        };
        fail.run(); // warm up: classes, JIT, the table's own growth

        long grown = HeapGrowth.of(fail);

        assertThat(grown).as("heap retained by 100,000 failed acquires (a leak of 32 B each is 3.2 MB)")
                .isLessThan(1_000_000);
        assertThat(holder.isHeld()).isTrue();
        holder.close();
    }

    /** A waiter queued for a key claims it before newcomers: one that an error ended must not stay queued. */
    @Test
    void waitersEndedByAnErrorShouldLeaveNoClaimBehind() throws Exception {
        Lease holder = threads.run(() -> registry.acquire(List.of("k")));
        AcquireOptions failing = AcquireOptions.defaults().withRetries(5)
                .withRetryInterval(attempt -> attempt == 0 ? Duration.ofNanos(1) : null);
        for (int i = 0; i < 100; i++) {
            assertThatThrownBy(() -> registry.acquire(List.of("k"), failing))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("retry interval function must return a non-negative duration");
        }

        holder.close();

        assertThat(registry.tryAcquire(List.of("k"))).as("nobody waits any more: a newcomer takes the key")
                .hasValueSatisfying(Lease::close);
    }

    private static AcquireOptions patient() {
        return AcquireOptions.defaults().withInfiniteRetries().withRetryInterval(Duration.ofSeconds(5))
                .withWaitTime(Threads.BOUND);
    }

    /** A caller that waits for {@code "k"}, which {@code holder} holds, once it is parked there. */
    private Future<Lease> waiterBehind(Lease holder) throws InterruptedException {
        assertThat(holder.keys()).containsExactly("k");
        CountDownLatch parked = new CountDownLatch(1);
        Future<Lease> waiter = threads.start(() -> {
            parked.countDown();
            return registry.acquire(List.of("k"), patient());
        });
        parked.await();
        awaitWaiting("k");
        return waiter;
    }

    /** Waits (bounded) until some thread parks waiting for {@code key}. */
    private void awaitWaiting(String key) throws InterruptedException {
        long deadline = System.nanoTime() + Threads.BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            for (Thread thread : threadsWaiting()) {
                if (thread.getState() == Thread.State.TIMED_WAITING) {
                    return;
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("nobody waits for " + key);
    }

    private static List<Thread> threadsWaiting() {
        List<Thread> found = new ArrayList<>();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            for (StackTraceElement frame : stack) {
                if (frame.getMethodName().equals("acquire") && frame.getClassName().endsWith("LockEngine")) {
                    found.add(thread);
                    return;
                }
            }
        });
        return found;
    }
}
