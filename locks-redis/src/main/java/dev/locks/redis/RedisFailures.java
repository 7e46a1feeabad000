package dev.locks.redis;

import dev.locks.LockUnavailableException;
import org.springframework.dao.DataAccessException;

/**
 * What a failed Redis command means for the caller, said once for the lock and the compute side: a write
 * refused for memory ({@code OOM}) says so, anything else asks whether Redis is reachable. Either way a
 * {@link LockUnavailableException}.
 */
final class RedisFailures {

    private RedisFailures() {
    }

    /** @param what who could not do what, say {@code "Redis lock store (key prefix 'locks:') could not acquire 'a'"} */
    static LockUnavailableException unavailable(String what, DataAccessException e) {
        String refusal = outOfMemory(e);
        if (refusal != null) {
            return new LockUnavailableException(what + ": Redis is out of memory and refused the write (" + refusal
                    + "). Raise its maxmemory, or keep computed values on another server: a RedisConnectionFactory"
                    + " bean named locksComputeRedisConnectionFactory", e);
        }
        return new LockUnavailableException(what + ": " + e.getMessage()
                + " (is Redis reachable? see spring.data.redis.*)", e);
    }

    /** Redis's {@code OOM ...} error text somewhere in the causes of {@code e}, or {@code null}. */
    static String outOfMemory(Throwable e) {
        for (Throwable each = e; each != null; each = each.getCause() == each ? null : each.getCause()) {
            String message = each.getMessage();
            int at = message == null ? -1 : message.indexOf("OOM ");
            if (at >= 0) {
                int end = message.indexOf('\n', at);
                return message.substring(at, end < 0 ? message.length() : end).trim();
            }
        }
        return null;
    }
}
