package dev.locks.local;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.support.AbstractLockRegistry;
import dev.locks.support.NonBlockingRelease;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;

/**
 * The in-memory {@link dev.locks.LockRegistry}: a lock table in this JVM (descended from Nebulex.Locks' ETS table).
 *
 * <ul>
 *   <li>An uncontended acquire is a {@code putIfAbsent} per key and costs about what that costs: no global
 *       lock, no thread per waiter, no allocation beyond the lease and its entries.</li>
 *   <li>A waiter parks and is woken as soon as a key it waits for is released; the retry interval is the
 *       fallback.</li>
 *   <li>A lock is stale once its owning thread has terminated or it has been held past its own lock
 *       timeout: an acquire that meets one removes it on the spot, and {@link #sweep()} removes all of them,
 *       in batches, without stopping acquirers.</li>
 *   <li>With {@link Builder#preciseClock(boolean) preciseClock(false)}, on the system clock an uncontended
 *       acquire stamps its lease with a time that one daemon thread per JVM refreshes every millisecond, rather
 *       than reading {@code System.nanoTime()}: a lock is never judged stale before its lock timeout, and at most a
 *       tick (2 ms) after it, unless that thread was held up (a busy machine descheduled it) when the lease was
 *       stamped: then its timeout counts from when the thread ran again. By default every acquire reads the
 *       clock.</li>
 *   <li>Unless {@link Builder#cleanupInterval(Duration)} is zero, the registry sweeps by itself every
 *       interval (default 5 minutes) on one daemon thread, stopped by {@link #close()}. The Spring Boot
 *       starter turns this off and schedules its own sweeper.</li>
 * </ul>
 *
 * <p>Thread-safe. Build one per application and share it.
 */
public final class LocalLockRegistry extends AbstractLockRegistry implements NonBlockingRelease {

    private LocalLockRegistry(Builder builder) {
        super(builder, null);
    }

    /** A registry with every default: {@link AcquireOptions#defaults()}, a sweep every 5 minutes. */
    public LocalLockRegistry() {
        this(builder());
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Takes every key at once if it can, under {@code options}' lock timeout, for asynchronous work, and never
     * waits or blocks (no round trip, no park): the lease, already {@linkplain Lease#detach() detached}, or empty
     * when a key is held or goes first to a caller that has waited for it longer, with nothing held. Being
     * detached, the lease is not the calling thread's: that thread does not re-enter it, and it re-enters no key
     * the thread holds (such a key counts as held), as a lease taken by another thread would not. Unlike
     * {@link #tryAcquire(Collection)}, which uses the default options, an empty answer is not counted as a
     * timeout: it is for a caller that then waits another way, as the Spring Boot starter's {@code @Locked} on a
     * {@code Mono} or {@code Flux} does off the subscriber's thread, so that a subscription whose keys are free
     * takes them where it runs.
     *
     * @throws IllegalArgumentException as {@link #acquire(Collection, AcquireOptions)} for keys it refuses
     */
    public Optional<Lease> acquireDetachedIfFree(Collection<String> keys, AcquireOptions options) {
        return Optional.ofNullable(attemptDetached(keys, options));
    }

    /** Builds a {@link LocalLockRegistry}; every setting has a default (see {@link AbstractLockRegistry.Builder}). */
    public static final class Builder extends AbstractLockRegistry.Builder<Builder> {

        private Builder() {
            super("local");
        }

        /**
         * Whether every acquire reads the clock itself ({@code true}, the default) or, with {@code false}, on
         * {@link dev.locks.LocksClock#system()}, an uncontended exclusive acquire stamps its lease with a time that
         * one daemon thread per JVM refreshes every millisecond (a field read instead of a {@code System.nanoTime()}
         * call, which costs 20 to 30 ns on a virtual machine). Either way a lock is never judged stale before its
         * lock timeout has passed since it was taken; with the coarse time it is judged so up to 2 ms after that
         * (longer only when that thread was held up, by as long as it was), and {@link Lease#acquiredAt()} and
         * {@link Lease#expiresAt()} may be up to 2 ms later than a precise reading would make them (earlier only when
         * that thread was held up). Any other clock ({@link #clock(dev.locks.LocksClock)}, a test's manual clock) is
         * always read itself. The thread starts with the first acquire, parks after a second without one, and ends
         * when the last registry using it is closed. The precise clock stays the default until the coarse one has
         * been measured on a quiet machine and run longer.
         */
        public Builder preciseClock(boolean precise) {
            coarseClock(!precise);
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the setting that is invalid
         */
        public LocalLockRegistry build() {
            return new LocalLockRegistry(this);
        }
    }
}
