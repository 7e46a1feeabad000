package dev.locks.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What a node publishes when a miss ends, for the waiters on every other node: which node, key and miss,
 * and how it ended ({@code value}: stored, fetch it; {@code null}: a null result, stored nowhere;
 * {@code failed}: with this exception class name and message; {@code unstored}: a miss invalidated while it ran,
 * whose value is kept with its record for a while). Also when a key is invalidated while a miss of it runs
 * ({@code invalidated}, with an empty miss): each node's later callers start a new miss. Each field is framed as
 * {@code <byte length>:<text>} ({@link ReleaseMessage}), and so is the whole, so that the lock side's
 * {@link ReleaseSubscription} delivers it whole.
 *
 * @param message {@code null} when the exception had none
 */
record RedisComputeNotice(String node, String key, String miss, String outcome, String className, String message) {

    static final String VALUE = "value";
    static final String NULL = "null";
    static final String FAILED = "failed";
    static final String UNSTORED = "unstored";
    static final String INVALIDATED = "invalidated";

    static RedisComputeNotice completed(String node, String key, String miss, boolean isNull) {
        return new RedisComputeNotice(node, key, miss, isNull ? NULL : VALUE, null, null);
    }

    /** The completion of a miss whose key was invalidated while it ran: nothing was stored. */
    static RedisComputeNotice completedInvalidated(String node, String key, String miss, boolean isNull) {
        return new RedisComputeNotice(node, key, miss, isNull ? NULL : UNSTORED, null, null);
    }

    /** {@code key} was invalidated while a miss of it ran. */
    static RedisComputeNotice invalidated(String node, String key) {
        return new RedisComputeNotice(node, key, "", INVALIDATED, null, null);
    }

    static RedisComputeNotice failed(String node, String key, String miss, Throwable error) {
        return new RedisComputeNotice(node, key, miss, FAILED, error.getClass().getName(), error.getMessage());
    }

    /** The published body. */
    String encode() {
        StringBuilder fields = new StringBuilder(64 + key.length())
                .append(ReleaseMessage.encode(node)).append(ReleaseMessage.encode(key))
                .append(ReleaseMessage.encode(miss)).append(ReleaseMessage.encode(outcome));
        if (className != null) {
            fields.append(ReleaseMessage.encode(className));
            if (message != null) {
                fields.append(ReleaseMessage.encode(message));
            }
        }
        return ReleaseMessage.encode(fields.toString());
    }

    /** A notice from the (unframed) text the subscription delivered, or {@code null} if it is not one. */
    static RedisComputeNotice decode(String fields) {
        List<String> parts = ReleaseMessage.decode(fields.getBytes(StandardCharsets.UTF_8));
        if (parts.size() < 4 || parts.size() > 6) {
            return null;
        }
        return new RedisComputeNotice(parts.get(0), parts.get(1), parts.get(2), parts.get(3),
                parts.size() > 4 ? parts.get(4) : null, parts.size() > 5 ? parts.get(5) : null);
    }
}
