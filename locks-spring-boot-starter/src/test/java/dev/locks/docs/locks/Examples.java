package dev.locks.docs.locks;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.time.Duration;
import java.util.List;

/** The plain API examples of docs/locks.md. */
class Examples {

    interface Storage {

        void write(String key, long value, long fencingToken);
    }

    private final LockRegistry registry;
    private final Storage storage;

    Examples(LockRegistry registry, Storage storage) {
        this.registry = registry;
        this.storage = storage;
    }

    void lease(long balance) {
        // tag::lease[]
        try (Lease lease = registry.acquire(List.of("account:1", "account:2"))) {
            storage.write("account:1", balance, lease.fencingToken());
        }
        // end::lease[]
    }

    AcquireOptions options() {
        // tag::acquire-options[]
        AcquireOptions options = registry.defaultOptions()
                .withRetries(10)
                .withRetryInterval(attempt -> Duration.ofMillis(10L << attempt))   // exponential back-off
                .withLockTimeout(Duration.ofMinutes(2))
                .withWaitTime(Duration.ofSeconds(5));
        // end::acquire-options[]
        return options;
    }

    void job() {
        // tag::try-acquire-job[]
        AcquireOptions job = registry.defaultOptions().withLockTimeout(Duration.ofMinutes(10))
                .withHoldAtLeast(Duration.ofMinutes(1));
        registry.tryAcquire(List.of("report"), job).ifPresent(lease -> {
            try (lease) {
                publishReport();
            }
        });
        // end::try-acquire-job[]
    }

    private void publishReport() {
    }
}
