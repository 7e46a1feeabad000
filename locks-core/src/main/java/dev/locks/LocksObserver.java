package dev.locks;

import java.util.concurrent.Executor;

/**
 * Events of a {@link LockRegistry} and a {@link ComputeCache}, for metrics and logs. Every method has an
 * empty default; implement those you need. Callbacks run on the caller's thread, on the hot path: keep
 * them cheap. A callback that throws is logged and ignored: it never skips an unlock.
 *
 * <p>No callback receives a lock key except {@link #onLeaseLost}: meters must not be tagged with keys.
 */
public interface LocksObserver {

    /** Observes nothing. */
    LocksObserver NONE = new LocksObserver() {
    };

    /**
     * For a call whose events arrive on another thread than the caller's (an
     * {@linkplain LockRegistry#acquireAsync asynchronous acquire}, which ends on a thread of the registry): called
     * on the caller's thread as the call starts, it returns what runs those later callbacks, with whatever they
     * need of the caller's thread restored around them (a name kept in a thread-local, say). By default they run
     * as they are.
     */
    default Executor callerContext() {
        return Runnable::run;
    }

    /** How an acquire ended. */
    enum AcquireResult {
        ACQUIRED("acquired"), TIMEOUT("timeout"), ERROR("error");

        private final String tag;

        AcquireResult(String tag) {
            this.tag = tag;
        }

        /** The value of the {@code result} tag. */
        public String tag() {
            return tag;
        }
    }

    /** Why a lock was stale. */
    enum StaleReason {
        DEAD_OWNER("dead-owner"), EXPIRED("expired");

        private final String tag;

        StaleReason(String tag) {
            this.tag = tag;
        }

        /** The value of the {@code reason} tag. */
        public String tag() {
            return tag;
        }
    }

    /** Who removed a stale lock. */
    enum Remover {
        ACQUIRE("acquire"), SWEEP("sweep");

        private final String tag;

        Remover(String tag) {
            this.tag = tag;
        }

        /** The value of the {@code by} tag. */
        public String tag() {
            return tag;
        }
    }

    /** How a fetch-or-compute call ended for its caller. */
    enum ComputeResult {
        HIT("hit"), COMPUTED("computed"), WAITED("waited"), FAILED("failed"), PROMOTED("promoted"),
        /**
         * Not how a call ended but an event within one: a stored value could not be read (corrupt, a class
         * renamed or refused by the deserialization filter), so it was removed and the call went on as a miss.
         * Reported with 0 nanoseconds, besides the call's own outcome.
         */
        UNREADABLE("unreadable"),
        /** A background refresh (section 11's {@code refreshAfter}) computed and stored a new value. */
        REFRESHED("refreshed"),
        /** A background refresh failed: the old value stays until its TTL, retried after the error back-off. */
        REFRESH_FAILED("refresh-failed"),
        /** A refresh was due but the node's refresh pool was full: skipped, tried again by the next due hit. */
        REFRESH_SKIPPED("refresh-skipped"),
        /** A call got the stale value of its key ({@code staleIfError}) instead of a failure. */
        STALE("stale");

        private final String tag;

        ComputeResult(String tag) {
            this.tag = tag;
        }

        /** The value of the {@code outcome} tag. */
        public String tag() {
            return tag;
        }
    }

    /** An acquire ended, after {@code nanos}. */
    default void onAcquire(AcquireResult result, long nanos) {
    }

    /** A stale lock was removed. */
    default void onStaleRemoved(StaleReason reason, Remover by) {
    }

    /** A sweep ended, after {@code nanos}, having removed {@code removed} locks. */
    default void onSweep(int removed, long nanos) {
    }

    /** A lease found that it had lost its lock on {@code key} (taken as stale, expired, renewal failed). */
    default void onLeaseLost(String key) {
    }

    /** A fetch-or-compute call ended for its caller, after {@code nanos}. */
    default void onCompute(ComputeResult result, long nanos) {
    }
}
