package dev.locks.redis;

import dev.locks.AcquireOptions;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Acquire options whose first pause opens a latch, so that a test releases a key only once the waiter has
 * failed its first attempt and is really waiting (never "sleep and hope").
 */
final class Waiting {

    private final CountDownLatch pausing = new CountDownLatch(1);

    /**
     * Three retries after pauses of {@code pause} (no jitter): a release must wake the waiter to be quick.
     * Three, not one: a notification of an earlier release of the key can reach a node late, after a new
     * holder took the key, and wake its waiter for nothing (pub/sub is asynchronous); that early wake-up
     * counts as an attempt.
     */
    AcquireOptions options(Duration pause) {
        return AcquireOptions.defaults().withRetries(3).withRetryInterval(attempt -> {
            pausing.countDown();
            return pause;
        });
    }

    /** Retries after five minutes: only a wake-up by the release makes it in time. */
    AcquireOptions onlyAWakeUpInTime() {
        return options(Duration.ofMinutes(5));
    }

    /** Returns once the waiter has begun its pause. */
    void awaitPause() throws InterruptedException {
        if (!pausing.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the waiter never paused");
        }
    }
}
