package dev.locks.benchmarks.proto;

import dev.locks.benchmarks.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Where the Redis cycle's time goes: locks-redis's own acquire and release scripts (read from its jar), run
 * through raw Lettuce, beside the floor on the same connection. If the scripts alone are as fast as the floor,
 * the gap of the registry is in the client path (Spring Data Redis, the engine); if they are as slow as the
 * registry, it is in the scripts' work on the server. 4 threads, one key each.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(4)
@State(Scope.Benchmark)
public class ProtoRedisScripts {

    private static final String PREFIX = "locks:";
    private static final String DELETE_OWN =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    private RedisServerProcess server;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    RedisCommands<String, String> commands;
    String acquire;
    String release;
    String deleteOwn;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        server = RedisServerProcess.start();
        client = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
        connection = client.connect();
        commands = connection.sync();
        acquire = commands.scriptLoad(script("acquire.lua"));
        release = commands.scriptLoad(script("release.lua"));
        deleteOwn = commands.scriptLoad(DELETE_OWN);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        connection.close();
        client.shutdown();
        server.close();
    }

    /** One caller: its key, as locks-redis stores it, and a counter for unique owner ids. */
    @State(Scope.Thread)
    public static class Caller {
        String key;
        String lockKey;
        String owner;
        long cycles;

        @Setup
        public void setUp(ThreadParams thread) {
            key = "t" + thread.getThreadIndex() + ":account:1000";
            lockKey = PREFIX + "lock:" + key;
            owner = "node-" + thread.getThreadIndex() + ":";
        }
    }

    /** locks-redis's scripts, as its store calls them: one {@code EVALSHA} each way. */
    @Benchmark
    public Object todaysScripts(Caller caller) {
        String owner = caller.owner + caller.cycles++;
        Long token = commands.evalsha(acquire, ScriptOutputType.INTEGER,
                new String[] {caller.lockKey, PREFIX + "fencing"}, owner, "bench-thread", "30000");
        if (token == null || token <= 0) {
            throw new IllegalStateException("not acquired: " + token);
        }
        return commands.evalsha(release, ScriptOutputType.MULTI, new String[] {caller.lockKey},
                PREFIX + "released", Integer.toString(PREFIX.length() + "lock:".length()), owner);
    }

    @Benchmark
    public Object floor(Caller caller) {
        String token = caller.owner + caller.cycles++;
        commands.set(caller.lockKey, token, SetArgs.Builder.nx().px(30_000));
        return commands.evalsha(deleteOwn, ScriptOutputType.INTEGER, new String[] {caller.lockKey}, token);
    }

    private static String script(String name) throws IOException {
        try (InputStream in = ProtoRedisScripts.class.getResourceAsStream("/dev/locks/redis/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no " + name + " in locks-redis");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
