package dev.locks.redis;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Where the Redis backend keeps its data under a key prefix: one hash per lock at
 * {@code <prefix>lock:<key>}; while someone waits for a key, its wait queue at {@code <prefix>queue:<key>}
 * (ticket ids by order) and the tickets' deadlines at {@code <prefix>queue-until:<key>}; the fencing counter
 * at {@code <prefix>fencing}, and the release channel {@code <prefix>released}. The {@code lock:} namespace
 * keeps a caller's key (say {@code "fencing"}) from ever meeting the counter or whatever else shares the prefix.
 */
final class KeySpace {

    private final String prefix;
    private final String lockPrefix;

    KeySpace(String prefix) {
        this.prefix = Objects.requireNonNull(prefix, "keyPrefix");
        this.lockPrefix = prefix + "lock:";
    }

    String prefix() {
        return prefix;
    }

    /** The Redis key of the lock on {@code key}. */
    String lock(String key) {
        return lockPrefix + key;
    }

    /** The Redis key of the wait queue of {@code key}: a sorted set of ticket ids, oldest (lowest order) first. */
    String queue(String key) {
        return prefix + "queue:" + key;
    }

    /** The Redis key of the deadlines of {@link #queue}'s tickets: a sorted set by expiry (server milliseconds). */
    String queueDeadlines(String key) {
        return prefix + "queue-until:" + key;
    }

    /** The caller's key of a lock's Redis key. */
    String keyOf(String lockKey) {
        return lockKey.substring(lockPrefix.length());
    }

    boolean isLock(String redisKey) {
        return redisKey.startsWith(lockPrefix) && redisKey.length() > lockPrefix.length();
    }

    /** The byte length of what {@link #lock} puts before a key, for the scripts (which count bytes). */
    int lockPrefixBytes() {
        return lockPrefix.getBytes(StandardCharsets.UTF_8).length;
    }

    String fencingCounter() {
        return prefix + "fencing";
    }

    String releaseChannel() {
        return prefix + "released";
    }

    /** The SCAN {@code MATCH} pattern of every lock: the prefix with its glob characters escaped. */
    String lockPattern() {
        StringBuilder pattern = new StringBuilder(lockPrefix.length() + 8);
        for (int i = 0; i < lockPrefix.length(); i++) {
            char c = lockPrefix.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                pattern.append('\\');
            }
            pattern.append(c);
        }
        return pattern.append('*').toString();
    }
}
