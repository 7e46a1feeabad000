package dev.locks.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Redis Cluster hash slots, for the backend's keys on a cluster: the slot of a key (CRC16, hash tags honoured,
 * through Spring Data Redis's {@link ClusterSlotHashUtil}), a short hash tag that lands in a given slot (so
 * that a store's own keys can share the slot of a lock key whatever that key's text), and the grouping of a
 * multi-key operation by slot in one global order (ascending slot, the keys in their given order within).
 */
final class ClusterSlots {

    static final int COUNT = ClusterSlotHashUtil.SLOT_COUNT;

    /** Whether Lettuce is there (the application may run on Jedis alone). */
    private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.cluster.RedisClusterClient",
            ClusterSlots.class.getClassLoader());

    /** TAGS[s]: the shortest decimal string (the first found) whose CRC16 lands in slot s. */
    private static volatile String[] tags;

    private ClusterSlots() {
    }

    /**
     * Whether {@code factory} connects to a Redis Cluster: its connections are cluster connections (getting one
     * sends no command).
     *
     * @throws org.springframework.dao.DataAccessException when no connection can be had
     */
    static boolean isCluster(RedisConnectionFactory factory) {
        try (RedisConnection connection = factory.getConnection()) {
            return connection instanceof RedisClusterConnection;
        }
    }

    /**
     * Whether notices on this factory go by sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}, Redis 7): on a
     * Redis Cluster through Lettuce ({@link LettuceShardSubscription}); elsewhere (one server, or a cluster
     * through Jedis, which Spring Data Redis gives no sharded subscription) plain {@code PUBLISH} and
     * {@code SUBSCRIBE}, which a cluster forwards to every node.
     *
     * @throws org.springframework.dao.DataAccessException when no connection can be had
     */
    static boolean shardedPubSub(RedisConnectionFactory factory) {
        return LETTUCE && isCluster(factory) && LettuceShardSubscription.supports(factory);
    }

    /**
     * The shard channel of {@code slot} for a channel name: {@code <channel>:{<tag of the slot>}}, which lands in
     * that slot (unless the channel has a hash tag of its own, as a prefix {@code "{locks}:"} gives: then every
     * key and channel is in that tag's slot, and only that slot's channel is ever published).
     */
    static String shardChannel(String channel, int slot) {
        return channel + ":{" + tag(slot) + "}";
    }

    static int slot(String redisKey) {
        return ClusterSlotHashUtil.calculateSlot(redisKey);
    }

    /** A hash tag's content ({@code {<tag>}} in a key name) that puts a key in {@code slot}. */
    static String tag(int slot) {
        String[] known = tags;
        if (known == null) {
            known = computeTags();
        }
        return known[slot];
    }

    private static synchronized String[] computeTags() {
        if (tags == null) {
            String[] found = new String[COUNT];
            int missing = COUNT;
            for (long n = 0; missing > 0; n++) { // about 170,000 CRC16s of short strings, once per JVM
                String candidate = Long.toString(n);
                int slot = ClusterSlotHashUtil.calculateSlot(candidate);
                if (found[slot] == null) {
                    found[slot] = candidate;
                    missing--;
                }
            }
            tags = found;
        }
        return tags;
    }

    /** {@code items} grouped by the slot of {@code redisKey(item)}: ascending slot, the given order within. */
    static <T> List<List<T>> bySlot(List<T> items, Function<T, String> redisKey) {
        Map<Integer, List<T>> groups = new TreeMap<>();
        for (T item : items) {
            groups.computeIfAbsent(slot(redisKey.apply(item)), s -> new ArrayList<>()).add(item);
        }
        return new ArrayList<>(groups.values());
    }
}
