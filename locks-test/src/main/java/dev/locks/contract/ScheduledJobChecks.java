package dev.locks.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Checks of what scheduled jobs need (SPEC 3 {@code holdAtLeast}, SPEC 10) on registries set up otherwise than the
 * contract's: each backend's tests call them with the registries they build.
 */
public final class ScheduledJobChecks {

    private static final Duration CLOCK_SLACK = Duration.ofMillis(5);

    private ScheduledJobChecks() {
    }

    /**
     * A lock's owner names its thread, then the application (when the registry has its name), the host and the
     * process, so that operations see which instance runs a job: {@code "main @ report-service on web-3 (4242)"}.
     *
     * @param named a distributed registry built with the application name {@code report-service}
     * @param unnamed another node on the same locks, built without one
     */
    public static void ownersShouldNameTheApplicationAndTheHost(LockRegistry named, LockRegistry unnamed)
            throws Exception {
        String node = InetAddress.getLocalHost().getHostName() + " (" + ProcessHandle.current().pid() + ")";
        String thread = Thread.currentThread().getName();
        try (Lease lease = named.acquire(List.of("job"))) {
            assertThat(unnamed.heldLock("job").orElseThrow().owner())
                    .isEqualTo(thread + " @ report-service on " + node);
        }
        try (Lease lease = unnamed.acquire(List.of("job"))) {
            assertThat(named.heldLock("job").orElseThrow().owner()).isEqualTo(thread + " @ " + node);
        }
    }

    /**
     * With the watchdog on: a lease renewed past {@code acquiredAt + holdAtLeast} and closed early is shortened to
     * that time, and renewed no more after the close (its key frees itself then, though the watchdog runs every
     * second).
     *
     * @param withWatchdog a registry whose watchdog is on
     */
    public static void watchdogShouldStopAtCloseAndTheHoldShouldShortenARenewedLease(LockRegistry withWatchdog)
            throws Exception {
        Duration timeout = Duration.ofSeconds(3);
        Duration hold = Duration.ofSeconds(3);
        Lease lease = withWatchdog.acquire(List.of("renewed"), AcquireOptions.defaults().withLockTimeout(timeout)
                .withHoldAtLeast(hold));
        Instant acquiredAt = withWatchdog.heldLock("renewed").orElseThrow().acquiredAt();
        Instant until = acquiredAt.plus(hold);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!withWatchdog.heldLock("renewed").orElseThrow().expiresAt().isAfter(until.plus(CLOCK_SLACK))) {
            assertThat(System.nanoTime() - deadline).as("renewed by the watchdog within 20 s").isNegative();
            Thread.sleep(10);
        }
        assertThat(lease.isHeld()).isTrue();
        lease.close();

        Optional<HeldLock> held = withWatchdog.heldLock("renewed");
        if (held.isPresent()) { // the hold may have passed by then on a loaded machine
            assertThat(held.get().expiresAt()).as("shortened to acquiredAt + holdAtLeast")
                    .isBetween(until.minus(CLOCK_SLACK), until.plus(CLOCK_SLACK));
        }
        // every backend's clock is this machine's wall clock; the watchdog runs every second meanwhile
        while (Instant.now().isBefore(until.plus(timeout))) {
            Thread.sleep(50);
        }
        assertThat(withWatchdog.heldLock("renewed")).as("renewed no more after the close").isEmpty();
        Optional<Lease> again = withWatchdog.tryAcquire(List.of("renewed"));
        assertThat(again).isPresent();
        again.get().close();
    }
}
