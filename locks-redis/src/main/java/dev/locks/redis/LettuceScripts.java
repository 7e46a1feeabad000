package dev.locks.redis;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The cycle's script calls, and the cache hit's {@code GET}, on the native connection a
 * {@link LettuceConnectionFactory} shares (its default, {@code shareNativeConnection}): Lettuce's asynchronous API
 * with {@code byte[]} keys and arguments, awaited on the calling thread, with no {@code RedisConnection} made,
 * wrapped and closed per call. On a Redis Cluster the
 * shared connection is Lettuce's cluster connection, which routes each call by its first key's slot (every key of
 * a call is in one slot) and follows {@code MOVED} and {@code ASK}.
 *
 * <p>As the factory's connection does: the wait is bounded by the connection's command timeout (then
 * {@code QueryTimeoutException}); an interrupt while waiting keeps the thread's status and fails the call, which
 * is what {@link RedisRoundTrip} bounds and repeats by; every failure is the factory's translated
 * {@link DataAccessException}. The shared connection is asked of the factory again once it is closed (the
 * factory was reset).
 */
final class LettuceScripts implements CycleScripts.Native {

    private final LettuceConnectionFactory factory;
    /** The factory, its connections had outside a round trip's timeout ({@link RedisRoundTrip#connectingUntimed}). */
    private final RedisConnectionFactory connecting;
    private volatile Shared shared;
    /** Whether the factory's connections turned out to give no shared Lettuce connection (then never asked again). */
    private volatile boolean none;

    private record Shared(StatefulConnection<byte[], byte[]> connection,
            RedisClusterAsyncCommands<byte[], byte[]> commands) {
    }

    private LettuceScripts(LettuceConnectionFactory factory, RedisConnectionFactory connecting) {
        this.factory = factory;
        this.connecting = connecting;
    }

    /** For a Lettuce factory that shares its native connection; else {@code null} (the factory's connections then). */
    static CycleScripts.Native of(RedisConnectionFactory factory, RedisConnectionFactory connecting) {
        return factory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection()
                ? new LettuceScripts(lettuce, connecting) : null;
    }

    @Override
    public List<?> call(RedisScript<?> script, byte[][] keys, byte[][] args) {
        Shared on = shared();
        if (on == null) {
            return null;
        }
        try {
            return await(on, on.commands().evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, args));
        } catch (RedisNoScriptException e) {
            return await(on, on.commands().eval(script.getScriptAsString(), ScriptOutputType.MULTI, keys, args));
        }
    }

    @Override
    public boolean get(byte[] key, byte[][] reply) {
        Shared on = shared();
        if (on == null) {
            return false;
        }
        reply[0] = await(on, on.commands().get(key));
        return true;
    }

    /** The shared connection, asked of the factory at first and after it was closed; null if none is shared. */
    private Shared shared() {
        Shared known = shared;
        if (known != null && known.connection().isOpen() || none) {
            return known;
        }
        synchronized (this) {
            known = shared;
            if (known == null || !known.connection().isOpen()) {
                try (RedisConnection connection = connecting.getConnection()) {
                    Object commands = connection.getNativeConnection();
                    StatefulConnection<byte[], byte[]> stateful = null;
                    if (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
                        stateful = cast(cluster.getStatefulConnection());
                    } else if (commands instanceof RedisAsyncCommands<?, ?> single) {
                        stateful = cast(single.getStatefulConnection());
                    }
                    known = stateful == null ? null : new Shared(stateful, cast(commands));
                    none = known == null;
                }
                shared = known;
            }
            return known;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object object) {
        return (T) object;
    }

    /** The reply, within the connection's command timeout; a failure translated, NOSCRIPT as is. */
    private <T> T await(Shared on, RedisFuture<T> reply) {
        try {
            long timeoutNanos = on.connection().getTimeout().toNanos();
            if (timeoutNanos > 0 && !reply.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
                reply.cancel(true);
                throw translate(new RedisCommandTimeoutException("Command timed out after "
                        + on.connection().getTimeout()));
            }
            return reply.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // RedisRoundTrip tells a timeout from a cut-off send by it
            reply.cancel(true);
            throw translate(new RedisCommandInterruptedException(e));
        } catch (CancellationException e) { // Lettuce cancelled it (its connection closed or reset): as its sync API
            throw translate(new RedisException("Command cancelled: " + e.getMessage(), e));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RedisNoScriptException noScript) {
                throw noScript;
            }
            throw translate(e.getCause() instanceof RuntimeException cause ? cause : new RedisSystemException(
                    String.valueOf(e.getCause()), e.getCause()));
        }
    }

    private DataAccessException translate(RuntimeException e) {
        DataAccessException translated = factory.translateExceptionIfPossible(e);
        return translated != null ? translated : new RedisSystemException(e.getMessage(), e);
    }
}
