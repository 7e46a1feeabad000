package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockUnavailableException;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.contract.Threads;
import dev.locks.test.InMemoryLockServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's asynchronous acquire where the contract cannot reach: a lease taken just as the future is cancelled
 * (made certain by an observer that cancels it as the acquire is counted, before the future is completed), and a
 * registry closed under pending acquires; in memory and in front of a store.
 */
class AsyncAcquireTest {

    private static final AcquireOptions WAIT = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMinutes(1)).withWaitTime(Duration.ofMinutes(2));

    /** Cancels {@link #target} when an acquire is counted; records the threads events arrive on. */
    private static final class Canceller implements LocksObserver {
        final AtomicReference<CompletableFuture<Lease>> target = new AtomicReference<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        @Override
        public void onAcquire(AcquireResult result, long nanos) {
            threads.add(Thread.currentThread().getName());
            CompletableFuture<Lease> future = target.getAndSet(null);
            if (future != null && result == AcquireResult.ACQUIRED) {
                future.cancel(true);
            }
        }
    }

    private static EngineLockRegistry registry(boolean store, LocksObserver observer) {
        return registry(store ? new InMemoryLockServer(LocksClock.system()) : null, observer);
    }

    private static EngineLockRegistry registry(InMemoryLockServer server, LocksObserver observer) {
        LockEngine.Settings settings = new LockEngine.Settings(server != null ? "shared" : "local",
                AcquireOptions.defaults(), Duration.ZERO, 100, false, LocksClock.system(), observer);
        return new EngineLockRegistry(settings, server != null ? server.node(true) : null) {
        };
    }

    @Test
    void anUnreachableStoreShouldFailTheFutureWithAnOutageOnTheRegistrysThread() throws Exception {
        InMemoryLockServer server = new InMemoryLockServer(LocksClock.system());
        try (EngineLockRegistry registry = registry(server, LocksObserver.NONE)) {
            Lease holder = registry.acquire(List.of("k")); // so that the future completes after thenApply is attached
            CompletableFuture<String> taken = registry.acquireAsync(List.of("k"), WAIT).thenApply(lease -> {
                lease.close();
                return Thread.currentThread().getName();
            });
            holder.close();
            assertThat(Threads.get(taken)).as("completed on the registry's pool, not the caller's nor a client's")
                    .startsWith("locks-shared-async-");

            server.down(true);
            CompletableFuture<Lease> refused = registry.acquireAsync(List.of("k"), WAIT);

            assertThatThrownBy(() -> Threads.get(refused)).isInstanceOf(LockUnavailableException.class);
            assertThat(registry.asyncAcquiresPending()).isZero();
            server.down(false);
            try (Lease lease = Threads.get(registry.acquireAsync(List.of("k"), WAIT))) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }

    @ParameterizedTest(name = "store {0}")
    @ValueSource(booleans = {false, true})
    void aLeaseTakenAsTheFutureIsCancelledShouldBeReleasedAtOnce(boolean store) throws Exception {
        Canceller canceller = new Canceller();
        try (EngineLockRegistry registry = registry(store, canceller)) {
            Lease holder = registry.acquire(List.of("k"));
            CompletableFuture<Lease> waiting = registry.acquireAsync(List.of("k"), WAIT);
            canceller.target.set(waiting);

            holder.close(); // the waiter takes the key; counted, its future is cancelled before it completes

            assertThatThrownBy(() -> Threads.get(waiting)).isInstanceOf(CancellationException.class);
            // the cancellation completed the future; the lease it missed is closed right after, on the pool
            await().atMost(Threads.BOUND).until(() -> registry.heldLocks().isEmpty());
            try (Lease next = registry.tryAcquire(List.of("k")).orElseThrow()) {
                assertThat(next.isHeld()).isTrue();
            }
            assertThat(registry.asyncAcquiresPending()).isZero();
            assertThat(canceller.threads).anyMatch(name -> name.contains("-async-"));
        }
    }

    @ParameterizedTest(name = "store {0}")
    @ValueSource(booleans = {false, true})
    void closingTheRegistryShouldFailPendingAcquiresHoldingNothing(boolean store) throws Exception {
        EngineLockRegistry registry = registry(store, LocksObserver.NONE);
        registry.acquire(List.of("k"));
        CompletableFuture<Lease> waiting = registry.acquireAsync(List.of("j", "k"), WAIT);

        registry.close();

        assertThatThrownBy(() -> Threads.get(waiting)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(registry.asyncAcquiresPending()).isZero();
        assertThat(registry.acquireAsync(List.of("x"), WAIT)).isCompletedExceptionally();
    }
}
