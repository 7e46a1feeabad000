package dev.locks.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.ClassUtils;

/**
 * The scripts of every lock cycle (acquire, release), and the cache hit's {@code GET} ({@link #get}), called on
 * the client's own connection rather than through {@code RedisTemplate}, which wraps each call's connection in
 * a proxy and runs the reply through serializers: these scripts' replies are lists of integers, which need none
 * (the hit's is the stored bytes). On a {@code LettuceConnectionFactory} that
 * shares its native connection (Spring Boot's default), on that connection through Lettuce's API
 * ({@link LettuceScripts}: no {@code RedisConnection} made per call); on any other factory (Jedis, or Lettuce
 * with a connection per call), on a connection of the factory. Either way {@code EVALSHA} first and {@code EVAL}
 * once when the server does not know the script ({@code NOSCRIPT}); failures are the client's translated
 * {@code DataAccessException}s.
 */
final class CycleScripts {

    /** Whether Lettuce is there (the application may run on Jedis alone). */
    private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            CycleScripts.class.getClassLoader());

    /** Script calls on a client's native connection. */
    interface Native {

        /** {@code script}'s reply, a list; {@code null} when this client has no connection of its own to call on. */
        List<?> call(RedisScript<?> script, byte[][] keys, byte[][] args);

        /** {@code GET key}, into {@code reply}[0]; whether this client has a connection of its own to call on. */
        boolean get(byte[] key, byte[][] reply);
    }

    private final RedisConnectionFactory factory;
    private final Native nativeScripts;

    /**
     * @param client the application's factory (a Lettuce one is called on natively)
     * @param connecting {@code client} for the store's commands: getting a connection is not part of a round trip
     */
    CycleScripts(RedisConnectionFactory client, RedisConnectionFactory connecting) {
        this.factory = connecting;
        this.nativeScripts = LETTUCE ? LettuceScripts.of(client, connecting) : null;
    }

    /** {@code script} on {@code keys} and {@code args} (strings): its reply, a list of integers. */
    List<?> call(RedisScript<?> script, List<String> keys, Object... args) {
        byte[][] keyBytes = new byte[keys.size()][];
        for (int i = 0; i < keyBytes.length; i++) {
            keyBytes[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
        }
        byte[][] argBytes = new byte[args.length][];
        for (int i = 0; i < argBytes.length; i++) {
            argBytes[i] = ((String) args[i]).getBytes(StandardCharsets.UTF_8);
        }
        if (nativeScripts != null) {
            List<?> reply = nativeScripts.call(script, keyBytes, argBytes);
            if (reply != null) {
                return reply;
            }
        }
        byte[][] keysAndArgs = Arrays.copyOf(keyBytes, keyBytes.length + argBytes.length);
        System.arraycopy(argBytes, 0, keysAndArgs, keyBytes.length, argBytes.length);
        try (RedisConnection connection = factory.getConnection()) {
            try {
                return connection.scriptingCommands().evalSha(script.getSha1(), ReturnType.MULTI, keys.size(),
                        keysAndArgs);
            } catch (RuntimeException e) {
                if (!noScript(e)) {
                    throw e;
                }
                return connection.scriptingCommands().eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8),
                        ReturnType.MULTI, keys.size(), keysAndArgs);
            }
        }
    }

    /**
     * {@code GET key}: a cache hit, with no more client work than Spring's {@code RedisCache.get} (a connection of
     * the factory, one command, its reply as is), and less on a Lettuce factory's shared connection.
     */
    byte[] get(String key) {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        if (nativeScripts != null) {
            byte[][] reply = new byte[1][];
            if (nativeScripts.get(keyBytes, reply)) {
                return reply[0];
            }
        }
        try (RedisConnection connection = factory.getConnection()) {
            return connection.stringCommands().get(keyBytes);
        }
    }

    private static boolean noScript(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }
}
