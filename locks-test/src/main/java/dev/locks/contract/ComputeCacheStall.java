package dev.locks.contract;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A computation that stalls until the test releases it, then returns its value or throws its error (checked
 * ones too, unwrapped). Counts its calls, so that a test can tell who computed.
 */
public final class ComputeCacheStall<T> implements Supplier<T> {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger calls = new AtomicInteger();
    private final T value;
    private final Throwable error;

    private ComputeCacheStall(T value, Throwable error) {
        this.value = value;
        this.error = error;
    }

    public static <T> ComputeCacheStall<T> returning(T value) {
        return new ComputeCacheStall<>(value, null);
    }

    public static <T> ComputeCacheStall<T> throwing(Throwable error) {
        return new ComputeCacheStall<>(null, error);
    }

    @Override
    public T get() {
        calls.incrementAndGet();
        entered.countDown();
        await(released);
        if (error != null) {
            throw ComputeCacheStall.<RuntimeException>sneaky(error);
        }
        return value;
    }

    /** Waits (bounded) until a caller runs this computation. */
    public ComputeCacheStall<T> awaitEntered() {
        await(entered);
        return this;
    }

    /** Lets the computation finish. */
    public void release() {
        released.countDown();
    }

    public int calls() {
        return calls.get();
    }

    @SuppressWarnings("unchecked")
    static <E extends Throwable> E sneaky(Throwable error) throws E {
        throw (E) error;
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("gave up after " + PATIENCE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stalled", e);
        }
    }
}
