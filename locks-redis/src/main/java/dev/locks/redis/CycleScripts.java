package dev.locks.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The scripts of every lock cycle (acquire, release), called on a connection of the factory directly rather
 * than through {@code RedisTemplate}, which wraps each call's connection in a proxy and runs the reply through
 * serializers: these scripts' replies are lists of integers, which need none. As {@code RedisTemplate} does,
 * {@code EVALSHA} first and {@code EVAL} once when the server does not know the script ({@code NOSCRIPT});
 * failures are the connection's translated {@code DataAccessException}s.
 */
final class CycleScripts {

    private final RedisConnectionFactory factory;

    CycleScripts(RedisConnectionFactory factory) {
        this.factory = factory;
    }

    /** {@code script} on {@code keys} and {@code args} (strings): its reply, a list of integers. */
    List<?> call(RedisScript<?> script, List<String> keys, Object... args) {
        byte[][] keysAndArgs = new byte[keys.size() + args.length][];
        for (int i = 0; i < keys.size(); i++) {
            keysAndArgs[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
        }
        for (int i = 0; i < args.length; i++) {
            keysAndArgs[keys.size() + i] = ((String) args[i]).getBytes(StandardCharsets.UTF_8);
        }
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

    private static boolean noScript(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }
}
