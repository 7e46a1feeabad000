package dev.locks.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> RELEASE = withQueues("release.lua", List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> RENEW = script("renew.lua", List.class);
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> READ = script("read.lua", List.class);
    static final RedisScript<Long> FORCE_RELEASE = script("force-release.lua", Long.class);
    static final RedisScript<Long> RAISE = script("raise.lua", Long.class);

    private LockScripts() {
    }

    /** The script {@code name} beside this class (the compute store's too), read once by the caller. */
    static <T> RedisScript<T> script(String name, Class<T> resultType) {
        return RedisScript.of(read(name), resultType);
    }

    /** A script that reads or changes wait queues: {@code queues.lua}'s functions come first. */
    private static <T> RedisScript<T> withQueues(String name, Class<T> resultType) {
        return RedisScript.of(read("queues.lua") + read(name), resultType);
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
