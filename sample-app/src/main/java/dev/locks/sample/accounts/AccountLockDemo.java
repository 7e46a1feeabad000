package dev.locks.sample.accounts;

import dev.locks.Lease;
import dev.locks.annotation.Locked;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.springframework.stereotype.Component;

/**
 * Holds an account's lock for a while, so that it can be seen in {@code /actuator/locks} and felt by a
 * transfer that waits for it.
 */
@Component
public class AccountLockDemo {

    /**
     * Takes {@code account:<id>}, hands its fencing token to {@code token}, and keeps the lock for
     * {@code duration} (or until the thread is interrupted).
     */
    @Locked(keys = "'account:' + #id", lockTimeout = "5m")
    public void hold(long id, Duration duration, CompletableFuture<Long> token) {
        token.complete(Lease.current().orElseThrow().fencingToken());
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
