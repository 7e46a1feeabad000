package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.LockTimeoutException;
import dev.locks.spi.RemoteLockStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;

/** When an acquire tries again, and what it says when it gives up: the retries and the wait time. */
final class Retries {

    private Retries() {
    }

    /**
     * How long to pause before the next attempt, or -1 when there is none because the retries or the wait
     * time ran out. The pause never reaches past the wait time.
     *
     * @param failedAttempt the 0-based number of the attempt that just failed
     * @param elapsedNanos the time spent since the acquire began
     * @throws IllegalArgumentException when a retry interval function returns an invalid pause
     */
    static long pauseNanos(AcquireOptions options, int failedAttempt, long elapsedNanos) {
        long left = Nanos.NEVER;
        Optional<Duration> waitTime = options.waitTime();
        if (waitTime.isPresent()) {
            left = Nanos.of(waitTime.get()) - elapsedNanos;
            if (left <= 0) {
                return -1;
            }
        }
        if (!options.allowsRetryAfter(failedAttempt)) {
            return -1;
        }
        return Math.min(Nanos.of(options.pauseAfter(failedAttempt)), left);
    }

    /**
     * How long a remote store may make an attempt wait for resources of its own (a connection) before it is made:
     * what is left of the wait time ({@code 0} once it has run out: only what is free now); the one attempt of a
     * caller that does not wait ({@code tryAcquire}, a wait time of zero, or no retries and no wait time)
     * {@link RemoteLockStore#ONE_ATTEMPT}; {@link RemoteLockStore#UNBOUNDED_WAIT} when no wait time bounds it. A
     * first attempt made after a wait time that was not zero ran out (an asynchronous acquire whose first step queued
     * on a busy pool) gets {@code 0}, not one attempt's wait: the caller's bound holds however late it starts.
     *
     * @param attempt the 0-based number of the attempt about to be made
     * @param elapsedNanos the time spent since the acquire began
     */
    static long storeWaitNanos(AcquireOptions options, int attempt, long elapsedNanos) {
        Optional<Duration> waitTime = options.waitTime();
        long left = waitTime.isPresent() ? Nanos.of(waitTime.get()) - elapsedNanos : RemoteLockStore.UNBOUNDED_WAIT;
        boolean noWait = waitTime.isPresent() ? waitTime.get().isZero()
                : !options.allowsRetryAfter(0);
        if (attempt == 0 && noWait) {
            return RemoteLockStore.ONE_ATTEMPT;
        }
        return Math.max(0, left);
    }

    /**
     * The exception of an acquire whose thread is interrupted when it would have to wait: it stops at once,
     * holding nothing, and its interrupt status stays set (SPEC section 3, "Interrupts").
     */
    static CancellationException cancelled(String[] keys, int attempts, Duration elapsed) {
        return new CancellationException("acquire of " + Keys.describe(List.of(keys))
                + " stopped waiting: the thread was interrupted after " + attempts
                + (attempts == 1 ? " attempt" : " attempts") + " in " + elapsed.toMillis()
                + " ms; nothing is held and the interrupt status stays set");
    }

    /**
     * The exception of an acquire that gave up: the keys, the attempts, the time spent, who holds what,
     * and which option to raise.
     *
     * @param blocked which key is held and by whom, as a sentence
     */
    static LockTimeoutException timeout(String[] keys, int attempts, Duration elapsed, AcquireOptions options,
            String blocked) {
        Optional<Duration> waitTime = options.waitTime();
        String advice = waitTime.isPresent() && elapsed.compareTo(waitTime.get()) >= 0
                ? "Raise the wait time (now " + waitTime.get() + "; locks.wait-time or @Locked(waitTime))."
                : "Raise the retries (now " + options.retries().getAsInt()
                        + "; locks.retries or @Locked(retries)) or set a wait time (locks.wait-time).";
        return new LockTimeoutException(List.of(keys), attempts, elapsed, blocked + " " + advice);
    }
}
