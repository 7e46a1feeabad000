package dev.locks.internal;

import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.LocksObserver.ComputeResult;
import java.time.Duration;

/**
 * What every {@link dev.locks.ComputeCache} backend checks of a call and hands back the same way. Not an API.
 */
public final class ComputeCalls {

    private ComputeCalls() {
    }

    /**
     * Checks the arguments of a fetch-or-compute call; the key only for {@code null} unless {@code wholeKey} (the
     * caller checks the rest of it later).
     */
    public static void checkCall(String key, Duration ttl, Object compute, boolean wholeKey) {
        if (wholeKey || key == null) {
            Keys.requireValid(key, 0);
        }
        requireTtl(ttl);
        if (compute == null) {
            throw new IllegalArgumentException("compute must not be null");
        }
    }

    public static void requireTtl(Duration ttl) {
        if (ttl == null || ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must be a duration >= 0 (0 = no expiry), was " + ttl);
        }
    }

    private static void requireTicket(ComputeTicket ticket) {
        if (ticket == null) {
            throw new IllegalArgumentException("ticket must not be null");
        }
    }

    /** Checks the arguments of {@link dev.locks.ComputeCache#complete}: a ticket, and a TTL >= 0 or {@code null}. */
    public static void checkComplete(ComputeTicket ticket, Duration ttl) {
        requireTicket(ticket);
        if (ttl != null) {
            requireTtl(ttl);
        }
    }

    /** Checks the arguments of {@link dev.locks.ComputeCache#fail}: a ticket and an error. */
    public static void checkFail(ComputeTicket ticket, Throwable error) {
        requireTicket(ticket);
        if (error == null) {
            throw new IllegalArgumentException("error must not be null");
        }
    }

    /** The error back-off of section 11: a duration > 0, else an {@link IllegalArgumentException} naming it. */
    public static Duration requireErrorBackoff(Duration errorBackoff) {
        if (errorBackoff == null || errorBackoff.isNegative() || errorBackoff.isZero()) {
            throw new IllegalArgumentException("errorBackoff must be a duration > 0, was " + errorBackoff);
        }
        return errorBackoff;
    }

    /** The refresh pool's bound of section 11: at least 1, else an {@link IllegalArgumentException} naming it. */
    public static int requireRefreshMaxConcurrent(int refreshMaxConcurrent) {
        if (refreshMaxConcurrent <= 0) {
            throw new IllegalArgumentException("refreshMaxConcurrent must be > 0, was " + refreshMaxConcurrent);
        }
        return refreshMaxConcurrent;
    }

    /** Returns a builder setting's {@code value}; {@code null} is an {@link IllegalArgumentException} naming it. */
    public static <T> T requireSetting(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    /** How a call that did not compute ended: hit, waited or failed. */
    public static ComputeResult resultOf(ComputeOutcome outcome) {
        if (outcome instanceof ComputeOutcome.Hit) {
            return ComputeResult.HIT;
        }
        return outcome instanceof ComputeOutcome.Value ? ComputeResult.WAITED : ComputeResult.FAILED;
    }

    /** The value of a hit or of a computation waited for; the error of a failed one, thrown as it is. */
    public static <V> V valueOf(ComputeOutcome outcome) {
        if (outcome instanceof ComputeOutcome.Failed failed) {
            throw sneaky(failed.error());
        }
        return cast(outcome instanceof ComputeOutcome.Hit hit ? hit.value() : ((ComputeOutcome.Value) outcome).value());
    }

    @SuppressWarnings("unchecked")
    public static <V> V cast(Object value) {
        return (V) value;
    }

    /** Throws {@code error} as it is, checked or not, without wrapping it. */
    public static RuntimeException sneaky(Throwable error) {
        return ComputeCalls.<RuntimeException>throwAs(error);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E throwAs(Throwable error) throws E {
        throw (E) error;
    }
}
