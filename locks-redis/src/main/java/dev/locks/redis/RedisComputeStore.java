package dev.locks.redis;

import dev.locks.LockUnavailableException;
import dev.locks.spi.RemoteComputeStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * The {@link RemoteComputeStore} of {@link RedisComputeCache}: one command or one script call per method, each
 * atomic on one Redis node.
 *
 * <p>Data, under the key prefix:
 * <ul>
 *   <li>{@code <prefix>value:<key>}: the value's bytes (as the core serialized it), expiring after its TTL ({@code PX}; none for
 *       {@link Duration#ZERO});</li>
 *   <li>{@code <prefix>compute:<key>}: the record of the key's miss, a hash that is also its compute lock:
 *       {@code miss} (id), {@code turn}, {@code computer} (id of the current computer), {@code desc} (its
 *       description), {@code at} (when it took its turn, microseconds by the server's clock), {@code hint}
 *       (the first computer's), {@code ttl} (the TTL the miss began with), {@code state}
 *       ({@code computing} or {@code done}) and, once done, {@code outcome} ({@code value}, {@code null} or
 *       {@code failed}, with {@code class} and {@code message}). While computing it expires after the
 *       current computer's compute timeout, so that a waiter takes over; once done, after
 *       {@link #DONE_GRACE}, so that a waiter whose notice was lost still learns a null result or a failure;</li>
 *   <li>for values stored by calls with refresh-ahead or stale-if-error (section 11), with a hash tag of the
 *       value's slot on a Redis Cluster: {@code <prefix>written:<key>}, the value's lifetime in milliseconds (its
 *       TTL; ten years for none), expiring with it, so that its age is that lifetime less its {@code PTTL} (an
 *       age by expiries only, that needs no clock); {@code <prefix>stale:<key>}, a copy of the value that expires
 *       {@code staleIfError} after it; and {@code <prefix>backoff:<key>}, the key's error back-off, expiring after
 *       it. A stored value ends the back-off; {@code invalidate} removes all three;</li>
 *   <li>{@code <prefix>computed}: the channel on which every end of a miss is published (the core's notice,
 *       framed once more by {@link ReleaseMessage} so that the lock side's {@link ReleaseSubscription} delivers it
 *       whole); each node subscribes once. On a Redis Cluster through Lettuce, a channel
 *       per slot instead, {@code <prefix>computed:{<tag>}}, that a script on a key publishes on with
 *       {@code SPUBLISH} (the value's slot: {@link ReleaseSubscription});</li>
 * </ul>
 * Scripts: {@code compute-claim.lua} (look up once more; then compute, take over, or wait),
 * {@code compute-complete.lua} (first completion of a miss wins: store, mark done, publish),
 * {@code compute-fail.lua} (only the current computer: mark done, publish), {@code compute-invalidate.lua}
 * (delete the value and set the miss in flight aside as {@code <prefix>invalidated:<key>}, whose completion
 * stores nothing) and {@code compute-discard.lua} (delete a value the core cannot read, if it is still the same).
 *
 * <p>Every method throws {@link LockUnavailableException}, naming what failed, when Redis cannot be reached or
 * does not answer within the client's command timeout.
 */
final class RedisComputeStore implements RemoteComputeStore {

    /** How long the record of a miss that is done stays. */
    static final Duration DONE_GRACE = Duration.ofSeconds(5);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> CLAIM = LockScripts.script("compute-claim.lua", List.class);
    private static final RedisScript<Long> COMPLETE = LockScripts.script("compute-complete.lua", Long.class);
    private static final RedisScript<Long> FAIL = LockScripts.script("compute-fail.lua", Long.class);
    private static final RedisScript<Long> INVALIDATE = LockScripts.script("compute-invalidate.lua", Long.class);
    private static final RedisScript<Long> DISCARD = LockScripts.script("compute-discard.lua", Long.class);
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> READ = LockScripts.script("compute-read.lua", List.class);
    /** The lifetime of the write time of a value stored without TTL: it must expire some day to tell its age. */
    static final long WRITTEN_HORIZON_MILLIS = Duration.ofDays(3650).toMillis();
    private static final byte[] NO_WRITE_TIME = bytes("-1");
    private static final byte[] HORIZON = bytes(Long.toString(WRITTEN_HORIZON_MILLIS));
    private static final byte[] NONE = new byte[0];
    /** The outcome names the scripts write into a miss record. */
    private static final String VALUE = "value";
    private static final String NULL = "null";
    private static final String FAILED = "failed";

    private final RedisConnectionFactory factory;
    private final RedisTemplate<String, byte[]> redis;
    /** The hit's {@code GET}: on a Lettuce factory's shared connection, else on a connection of the factory. */
    private final CycleScripts hit;
    private final RedisRoundTrip roundTrip;
    private final String prefix;
    private final String channel;
    private final byte[] channelBytes;
    private final byte[] graceMillis;
    private volatile Boolean cluster;
    private volatile ReleaseSubscription subscription;
    /** Whether notices go by sharded pub/sub, on the channel of the value's slot; null until the first command. */
    private volatile Boolean sharded;

    RedisComputeStore(RedisConnectionFactory factory, String keyPrefix) {
        this(factory, keyPrefix, RedisRoundTrip.DEFAULT_TIMEOUT);
    }

    /** @param timeout the longest any one round trip may take ({@code locks.redis.timeout}, > 0) */
    RedisComputeStore(RedisConnectionFactory factory, String keyPrefix, Duration timeout) {
        this.roundTrip = new RedisRoundTrip(timeout);
        this.factory = factory;
        this.prefix = keyPrefix;
        this.channel = keyPrefix + "computed";
        this.channelBytes = bytes(channel);
        this.graceMillis = bytes(Long.toString(DONE_GRACE.toMillis()));
        this.redis = new RedisTemplate<>();
        RedisConnectionFactory connecting = RedisRoundTrip.connectingUntimed(factory); // connecting is not timed
        this.hit = new CycleScripts(factory, connecting);
        redis.setConnectionFactory(connecting);
        redis.setKeySerializer(RedisSerializer.string());
        redis.setValueSerializer(RedisSerializer.byteArray());
        redis.setEnableDefaultSerializer(false);
        redis.afterPropertiesSet();
    }

    /** The bytes of the stored, unexpired value of {@code key}, or {@code null}: one {@code GET}. */
    @Override
    public byte[] get(String key) {
        return call(() -> "read '" + key + "'", () -> hit.get(valueKey(key)));
    }

    /** Deletes the value of {@code key} if it is still {@code stored}: one script call. */
    @Override
    public boolean discard(String key, byte[] stored) {
        Long deleted = call(() -> "remove the unreadable value of '" + key + "'",
                () -> redis.execute(DISCARD, raw(), raw(), List.of(valueKey(key)), stored));
        return deleted != null && deleted > 0;
    }

    /**
     * Removes the value of {@code key} and takes its miss in flight, if any, out of the way (its result will
     * not be stored; callers that claim later start a new miss), publishing the notice if there was one:
     * one script call.
     */
    @Override
    public void invalidate(String key, String notice) {
        call(() -> "invalidate '" + key + "'", () -> redis.execute(sharded(INVALIDATE), raw(), raw(),
                List.of(valueKey(key), missKey(key), invalidatedKey(key), writtenKey(key), staleKey(key),
                        backOffKey(key)), channel(key), published(notice)));
    }

    /**
     * The value with its age, or its stale copy, and whether the key backs off: one script call
     * ({@code compute-read.lua}).
     */
    @Override
    public Entry entry(String key) {
        List<?> reply = call(() -> "read '" + key + "'", () -> redis.execute(READ, raw(), raw(),
                List.of(valueKey(key), writtenKey(key), staleKey(key), backOffKey(key))));
        return switch (text(reply, 0)) {
            case "value" -> new Entry((byte[]) reply.get(1), Math.max(0L, (Long) reply.get(2)), false,
                    (Long) reply.get(3) == 1L);
            case "stale" -> new Entry((byte[]) reply.get(1), 0L, true, (Long) reply.get(2) == 1L);
            default -> null;
        };
    }

    /** The key's error back-off: one {@code SET NX PX}. */
    @Override
    public boolean backOff(String key, Duration backOff) {
        Boolean set = call(() -> "start the error back-off of '" + key + "'",
                () -> redis.opsForValue().setIfAbsent(backOffKey(key), bytes("1"), backOff));
        return Boolean.TRUE.equals(set);
    }

    /**
     * The value an invalidated miss ended with, kept with its record for {@link #DONE_GRACE} for the waiters
     * on other nodes; {@code null} if it is gone, or is not {@code missId}'s.
     */
    @Override
    public byte[] invalidatedValue(String key, String missId) {
        List<byte[]> fields = call(() -> "read the value of '" + key + "'", () -> redis.<byte[], byte[]>opsForHash()
                .multiGet(invalidatedKey(key), List.of(bytes("miss"), bytes("outcome"), bytes("value"))));
        if (fields == null || fields.get(0) == null || !missId.equals(new String(fields.get(0), StandardCharsets.UTF_8))
                || fields.get(2) == null || fields.get(2).length == 0) {
            return null;
        }
        return fields.get(2);
    }

    /**
     * Looks {@code key} up once more and, if it is missing, makes the claimant the computer of its miss (a new
     * one, or {@code awaited} when its computer timed out) or tells it whom to wait for: one script call.
     *
     * @param awaited the miss the claimant waited for, or {@code null}
     */
    @Override
    public Claim claim(String key, Claimant claimant, Miss awaited) {
        List<?> reply = call(() -> "claim the computation of '" + key + "'", () -> redis.execute(CLAIM, raw(), raw(),
                List.of(valueKey(key), missKey(key), invalidatedKey(key), writtenKey(key)),
                bytes(claimant.computer()), bytes(claimant.description()), millis(claimant.computeTimeout(), 1),
                bytes(claimant.newMiss()), bytes(claimant.hint()), millis(claimant.ttl(), 0),
                bytes(awaited == null ? "" : awaited.id()),
                bytes(awaited == null ? "0" : Integer.toString(awaited.turn())),
                bytes(awaited == null ? "" : awaited.hint()),
                bytes(awaited == null ? "0" : Long.toString(awaited.ttlMillis())),
                millis(claimant.refreshAfter(), 0)));
        return switch (text(reply, 0)) {
            case "hit" -> new Claim.Hit((byte[]) reply.get(1));
            case "compute" -> {
                Miss miss = miss(reply);
                yield new Claim.Compute(miss, new Ticket(miss.id(), miss.turn(), claimant.computer()));
            }
            case "wait" -> {
                awaitingNotice(key);
                yield new Claim.Wait(miss(reply), (Long) reply.get(5), text(reply, 6),
                        micros(Long.parseLong(text(reply, 7))));
            }
            case "done" -> switch (text(reply, 1)) {
                case FAILED -> new Claim.Done(Notice.Outcome.FAILED, null, text(reply, 2), text(reply, 3));
                case VALUE -> new Claim.Done(Notice.Outcome.UNSTORED, (byte[]) reply.get(2), null, null);
                default -> new Claim.Done(Notice.Outcome.NULL, null, null, null);
            };
            default -> throw new IllegalStateException("compute-claim.lua answered " + text(reply, 0));
        };
    }

    /**
     * Settles the ticket's miss with the completion's value, stored unless it is {@code null}, if this is the miss's
     * first completion from any of its computers, and publishes its notice; a fresh completion also gives a stored
     * value its write time and, for a positive stale window and TTL, its stale copy, and ends its error back-off.
     * One script call.
     *
     * @return false, changing nothing, if the miss is over or unknown
     */
    @Override
    public boolean complete(String key, Ticket ticket, Completion completion) {
        byte[] value = completion.value();
        Duration ttl = completion.ttl();
        byte[] staleMillis = completion.fresh() ? millis(completion.staleIfError(), 0) : NO_WRITE_TIME;
        Long done = call(() -> "store the value of '" + key + "'", () -> redis.execute(sharded(COMPLETE), raw(), raw(),
                List.of(valueKey(key), missKey(key), invalidatedKey(key), writtenKey(key), staleKey(key),
                        backOffKey(key)), bytes(ticket.miss()), bytes(value == null ? NULL : VALUE),
                value == null ? NONE : value, ttl == null ? bytes("-1") : millis(ttl, 0), graceMillis, channel(key),
                published(completion.notice()), published(completion.unstoredNotice()), staleMillis, HORIZON));
        return done != null && done > 0;
    }

    /**
     * Ends the ticket's miss with {@code error}, if the ticket is its current computer's; publishes the
     * notice (class name and message) from {@code node}. One script call.
     *
     * @return false, changing nothing, for a computer whose turn timed out or a miss that is over
     */
    @Override
    public boolean fail(String key, Ticket ticket, String className, String message, String notice) {
        Long done = call(() -> "record the failure of '" + key + "'", () -> redis.execute(sharded(FAIL), raw(), raw(),
                List.of(missKey(key), invalidatedKey(key)), bytes(ticket.miss()), bytes(ticket.computer()),
                bytes(className), bytes(message == null ? "0" : "1"), bytes(message == null ? "" : message),
                graceMillis, channel(key), published(notice)));
        return done != null && done == 1;
    }

    /**
     * Starts this node's one subscription to the channel of ended misses (Redis need not be up yet: it is
     * retried in the background).
     */
    @Override
    public void subscribe(Listener listener) {
        ReleaseSubscription started = new ReleaseSubscription(factory, channel, listener::noticed,
                () -> { }); // notices missed during an outage: waiting representatives poll (RemoteComputeCache)
        subscription = started;
        started.start();
    }

    /**
     * This node waits for the notice of {@code key}'s miss: with sharded pub/sub its subscription takes the
     * channel of the value's slot from now on ({@link ReleaseSubscription#want}); a notice sent before that
     * channel is subscribed is missed, and the waiter finds the outcome at its next poll.
     */
    private void awaitingNotice(String key) {
        ReleaseSubscription subscribed = subscription;
        if (subscribed != null && shardedPubSub()) {
            subscribed.want(ClusterSlots.shardChannel(channel, ClusterSlots.slot(valueKey(key))));
        }
    }

    /** Subscribes anew: see {@link RedisComputeCache#resubscribe()}. */
    void resubscribe() {
        subscription.restart();
    }

    /** How many times Redis confirmed this node's subscription (once, plus once per re-subscription). */
    int subscriptionConfirmations() {
        return subscription.confirmations();
    }

    /** Ends the subscription; the connection factory stays open. */
    @Override
    public void close() {
        ReleaseSubscription started = subscription;
        if (started != null) {
            started.close();
        }
    }

    String prefix() {
        return prefix;
    }

    String channel() {
        return channel;
    }

    private String valueKey(String key) {
        return prefix + "value:" + key;
    }

    /** The channel a script on {@code key} publishes on: with sharded pub/sub the value's slot's, else the one. */
    private byte[] channel(String key) {
        return shardedPubSub() ? bytes(ClusterSlots.shardChannel(channel, ClusterSlots.slot(valueKey(key)))) : channelBytes;
    }

    /** {@code script}, or with sharded pub/sub its twin that publishes on the shard ({@link LockScripts#sharded}). */
    private <T> RedisScript<T> sharded(RedisScript<T> script) {
        return shardedPubSub() ? LockScripts.sharded(script) : script;
    }

    private boolean shardedPubSub() {
        Boolean known = sharded;
        if (known == null) {
            known = onCluster() && ClusterSlots.shardedPubSub(factory);
            sharded = known;
        }
        return known;
    }

    /** On a Redis Cluster, with a hash tag of the value's slot: the scripts touch both. */
    private String missKey(String key) {
        return prefix + "compute:" + valueSlotTag(key) + key;
    }

    /** On a Redis Cluster, the hash tag of {@code key}'s value's slot; else nothing. */
    private String valueSlotTag(String key) {
        return onCluster() ? "{" + ClusterSlots.tag(ClusterSlots.slot(valueKey(key))) + "}" : "";
    }

    /** Whether the factory connects to a Redis Cluster, asked on first use (inside a round trip's call). */
    private boolean onCluster() {
        Boolean known = cluster;
        if (known == null) {
            known = ClusterSlots.isCluster(redis.getRequiredConnectionFactory()); // connecting is not timed
            cluster = known;
        }
        return known;
    }

    /** The value's write time; on a Redis Cluster with a hash tag of the value's slot, as {@link #missKey}. */
    private String writtenKey(String key) {
        return prefix + "written:" + valueSlotTag(key) + key;
    }

    /** The value's stale copy, as {@link #writtenKey}. */
    private String staleKey(String key) {
        return prefix + "stale:" + valueSlotTag(key) + key;
    }

    /** The key's error back-off, as {@link #writtenKey}. */
    private String backOffKey(String key) {
        return prefix + "backoff:" + valueSlotTag(key) + key;
    }

    /** On a Redis Cluster, with a hash tag of the value's slot, as {@link #missKey}. */
    private String invalidatedKey(String key) {
        return prefix + "invalidated:" + valueSlotTag(key) + key;
    }

    /** The core's notice as published: framed once more, so that the subscription delivers it whole. */
    private static byte[] published(String notice) {
        return bytes(ReleaseMessage.encode(notice));
    }

    private <T> T call(Supplier<String> what, Supplier<T> command) {
        try {
            return roundTrip.call(command); // whatever the caller's interrupt status, within the timeout
        } catch (DataAccessException e) {
            throw RedisFailures.unavailable("Redis compute cache (key prefix '" + prefix + "') could not " + what.get(),
                    e);
        }
    }

    private static Miss miss(List<?> reply) {
        return new Miss(text(reply, 1), Integer.parseInt(text(reply, 2)), text(reply, 3),
                Long.parseLong(text(reply, 4)));
    }

    /** Passes bytes through both ways: arguments are given as bytes, replies are read as bytes or numbers. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static <T> RedisSerializer<T> raw() {
        return (RedisSerializer) RedisSerializer.byteArray();
    }

    private static String text(List<?> reply, int index) {
        Object item = reply.get(index);
        return item == null ? null : new String((byte[]) item, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Whole milliseconds, rounded up so that a positive duration never becomes 0; at least {@code min}. */
    private static byte[] millis(Duration duration, long min) {
        long millis;
        try {
            millis = duration.plusNanos(999_999).toMillis();
        } catch (ArithmeticException tooLong) {
            millis = Long.MAX_VALUE / 2;
        }
        return bytes(Long.toString(Math.max(min, millis)));
    }

    private static Instant micros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

}
