package dev.locks.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of the Redis backend (beside this class, {@code *.lua}), read once. Each runs atomically
 * on one Redis node, in one round trip: {@code EVALSHA}, falling back to {@code EVAL} once when the server
 * does not know the script yet ({@code NOSCRIPT}, after a restart say).
 */
final class LockScripts {

    @SuppressWarnings("rawtypes")
    static final RedisScript<List> ACQUIRE = withQueues("acquire.lua", List.class);
    static final RedisScript<Long> ENQUEUE = withQueues("enqueue.lua", Long.class);
    static final RedisScript<Long> DEQUEUE = withQueues("dequeue.lua", Long.class);
    static final RedisScript<Long> REFRESH = withQueues("refresh.lua", Long.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> RELEASE = withQueues("release.lua", List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> RENEW = withLocks("renew.lua", List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> READ = withLocks("read.lua", List.class);
    static final RedisScript<Long> FORCE_RELEASE = script("force-release.lua", Long.class);
    static final RedisScript<Long> RAISE = withLocks("raise.lua", Long.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> SHARED_ACQUIRE = withQueues("shared-acquire.lua", List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> SHARED_RELEASE = withQueues("shared-release.lua", List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> SHARED_RENEW = withQueues("shared-renew.lua", List.class);

    private static final String PUBLISH = "redis.call('PUBLISH',";
    private static final Map<RedisScript<?>, RedisScript<?>> SHARDED = new ConcurrentHashMap<>();

    private LockScripts() {
    }

    /**
     * {@code script} for sharded pub/sub (on a Redis Cluster through Lettuce: {@link ReleaseSubscription}): the
     * same text with each {@code redis.call('PUBLISH', ...)} made {@code redis.call('SPUBLISH', ...)}, so that a
     * notice stays on the shard of the keys the script touched; the caller passes a channel of their slot
     * ({@link ClusterSlots#shardChannel}). Made once per script.
     *
     * @throws IllegalStateException for a script that names {@code PUBLISH} in another form, which would
     *         publish cluster-wide where no node listens
     */
    @SuppressWarnings("unchecked")
    static <T> RedisScript<T> sharded(RedisScript<T> script) {
        return (RedisScript<T>) SHARDED.computeIfAbsent(script, plain -> {
            String text = plain.getScriptAsString();
            int calls = text.split(Pattern.quote(PUBLISH), -1).length - 1;
            int named = text.split("['\"]PUBLISH['\"]", -1).length - 1;
            if (named != calls) {
                throw new IllegalStateException("a script names PUBLISH other than as " + PUBLISH + " ...): "
                        + text.lines().findFirst().orElse(""));
            }
            return RedisScript.of(text.replace(PUBLISH, "redis.call('SPUBLISH',"), plain.getResultType());
        });
    }

    /** The script {@code name} beside this class (the compute store's too), read once by the caller. */
    static <T> RedisScript<T> script(String name, Class<T> resultType) {
        return RedisScript.of(read(name), resultType);
    }

    /** A script that reads or writes locks: {@code lock-value.lua}'s functions (the locks' format) come first. */
    private static <T> RedisScript<T> withLocks(String name, Class<T> resultType) {
        return RedisScript.of(read("lock-value.lua") + read(name), resultType);
    }

    /** A script that reads or changes wait queues (and locks): {@code lock-value.lua}'s and {@code queues.lua}'s functions come first. */
    private static <T> RedisScript<T> withQueues(String name, Class<T> resultType) {
        return RedisScript.of(read("lock-value.lua") + read("queues.lua") + read(name), resultType);
    }

    private static String read(String name) {
        try (InputStream in = LockScripts.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing script " + name + " beside " + LockScripts.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + name, e);
        }
    }
}
