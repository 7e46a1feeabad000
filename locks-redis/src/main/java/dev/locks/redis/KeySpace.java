package dev.locks.redis;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Where the Redis backend keeps its data under a key prefix: one hash per lock at
 * {@code <prefix>lock:<key>}; while someone waits for a key, its wait queue at {@code <prefix>queue:<key>}
 * (ticket ids by order) and the tickets' deadlines at {@code <prefix>queue-until:<key>}; the fencing counter
 * at {@code <prefix>fencing}, and the release channel {@code <prefix>released}. The {@code lock:} namespace
 * keeps a caller's key (say {@code "fencing"}) from ever meeting the counter or whatever else shares the prefix.
 *
 * <p>On a Redis Cluster ({@link #forCluster(boolean)}) a script may only touch keys of one hash slot, so the names a
 * lock key's scripts use with it carry a hash tag of that key's slot ({@link ClusterSlots#tag}):
 * {@code <prefix>queue:{<tag>}<key>}, {@code <prefix>queue-until:{<tag>}<key>}, and one fencing counter per
 * slot, {@code <prefix>fencing:{<tag>}}. Lock keys keep their names (they spread over the slots by their own
 * text). With sharded pub/sub ({@link ClusterSlots#shardedPubSub}) a release notice goes on the channel of its
 * keys' slot, {@code <prefix>released:{<tag>}} ({@link ClusterSlots#shardChannel}); otherwise on the one channel.
 */
final class KeySpace {

    private final String prefix;
    private final String lockPrefix;
    private final boolean cluster;
    private final boolean sharded;

    KeySpace(String prefix) {
        this(prefix, false, false);
    }

    private KeySpace(String prefix, boolean cluster, boolean sharded) {
        this.prefix = Objects.requireNonNull(prefix, "keyPrefix");
        this.lockPrefix = prefix + "lock:";
        this.cluster = cluster;
        this.sharded = sharded;
    }

    /**
     * This key space with the names of a Redis Cluster, with a release channel per slot when {@code sharded}
     * (sharded pub/sub). A prefix with a complete hash tag ({@code "{locks}:"})
     * still works, every key then in that tag's one slot; a prefix with an unclosed or empty one cannot.
     *
     * @throws IllegalStateException naming {@code locks.key-prefix} for a prefix whose braces would move the
     *         store's keys out of their lock key's slot
     */
    KeySpace forCluster(boolean sharded) {
        int open = prefix.indexOf('{');
        if (open >= 0) {
            int close = prefix.indexOf('}', open + 1);
            if (close < 0 || close == open + 1) {
                throw new IllegalStateException("locks.key-prefix '" + prefix + "' has an unclosed or empty hash tag"
                        + " ('{' without a non-empty '{...}'), which Redis Cluster would hash into other slots than"
                        + " the lock keys'; close it ('{locks}:') or leave braces out");
            }
        }
        return new KeySpace(prefix, true, sharded);
    }

    boolean cluster() {
        return cluster;
    }

    /** Whether notices go by sharded pub/sub: {@code SPUBLISH} on the channel of their keys' slot. */
    boolean sharded() {
        return sharded;
    }

    /** On a cluster, the hash tag of the slot of {@code key}'s lock, else nothing. */
    private String slotTag(String key) {
        return cluster ? "{" + ClusterSlots.tag(ClusterSlots.slot(lock(key))) + "}" : "";
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
        return prefix + "queue:" + slotTag(key) + key;
    }

    /** The Redis key of the deadlines of {@link #queue}'s tickets: a sorted set by expiry (server milliseconds). */
    String queueDeadlines(String key) {
        return prefix + "queue-until:" + slotTag(key) + key;
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

    /** The fencing counter of the slot of {@code key}'s lock: on a cluster one per slot, else the one. */
    String fencingCounter(String key) {
        return cluster ? prefix + "fencing:{" + ClusterSlots.tag(ClusterSlots.slot(lock(key))) + "}" : fencingCounter();
    }

    String releaseChannel() {
        return prefix + "released";
    }

    /**
     * The channel a script touching {@code key}'s slot publishes its release notices on: with sharded pub/sub
     * that slot's shard channel, else the one channel.
     */
    String releaseChannel(String key) {
        return sharded ? ClusterSlots.shardChannel(releaseChannel(), ClusterSlots.slot(lock(key))) : releaseChannel();
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
