package dev.locks.benchmarks.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.ScriptOutputType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * The clients of the Redis benchmarks, one state per implementation, each with a {@code redis-server} and a
 * connection of its own (a fork builds only the state its benchmark uses). Everything is as a Spring Boot
 * application would have it: Lettuce through a {@code LettuceConnectionFactory} with its defaults (one shared
 * connection), Redisson with its defaults, the lock lease 30 seconds everywhere (this project's default lock
 * timeout), no watchdog.
 */
public final class RedisClients {

    /** How long a lock lives in Redis if its holder never releases it. */
    static final Duration LEASE = Duration.ofSeconds(30);

    private RedisClients() {
    }

    /**
     * The system property naming the folder where each fork writes what its server ran during the measured
     * iterations ({@link CommandStats#file}); unset, nothing is counted.
     */
    public static final String COMMAND_STATS_DIR = "locks.benchmarks.commandstats";

    /**
     * A server for the trial, and the client {@link #open} makes on it. With {@link #COMMAND_STATS_DIR} set,
     * {@code INFO commandstats} is read before and after each measured iteration (outside it: JMH runs these
     * between iterations), and the sum of what ran in them is written at the end of the trial; the report
     * divides it by the operations JMH counted in those iterations.
     */
    @State(Scope.Benchmark)
    public abstract static class WithServer {
        private RedisServerProcess server;
        private CommandStats before = CommandStats.none();
        private CommandStats measured = CommandStats.none();

        @Setup(Level.Trial)
        public final void start() throws Exception {
            server = RedisServerProcess.start();
            open(server);
        }

        @Setup(Level.Iteration)
        public final void countFrom(IterationParams iteration) {
            if (counting(iteration)) {
                before = CommandStats.parse(server.info("commandstats") + server.info("cpu"));
            }
        }

        @TearDown(Level.Iteration)
        public final void countTo(IterationParams iteration) {
            if (counting(iteration)) {
                measured = measured.plus(CommandStats.parse(server.info("commandstats") + server.info("cpu"))
                        .since(before));
            }
        }

        @TearDown(Level.Trial)
        public final void stop(BenchmarkParams benchmark) throws Exception {
            try {
                close();
            } finally {
                server.close();
            }
            String dir = System.getProperty(COMMAND_STATS_DIR);
            if (dir != null) {
                Map<String, String> params = new TreeMap<>();
                for (String key : benchmark.getParamsKeys()) {
                    params.put(key, benchmark.getParam(key));
                }
                measured.write(CommandStats.file(Path.of(dir), benchmark.getBenchmark(), params, benchmark.getThreads()));
            }
        }

        private static boolean counting(IterationParams iteration) {
            return System.getProperty(COMMAND_STATS_DIR) != null && iteration.getType() == IterationType.MEASUREMENT;
        }

        abstract void open(RedisServerProcess server) throws Exception;

        abstract void close() throws Exception;

        static LettuceConnectionFactory connectionFactory(RedisServerProcess server) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration("127.0.0.1", server.port()));
            factory.afterPropertiesSet();
            factory.start();
            return factory;
        }
    }

    /** This project's Redis registry, with its defaults (waiters woken by publish), no periodic sweep. */
    public static class ThisProject extends WithServer {
        LettuceConnectionFactory factory;
        dev.locks.redis.RedisLockRegistry registry;

        @Override
        void open(RedisServerProcess server) {
            factory = connectionFactory(server);
            registry = dev.locks.redis.RedisLockRegistry.builder(factory).cleanupInterval(Duration.ZERO)
                    .notify(notifies()).build();
        }

        boolean notifies() {
            return true;
        }

        @Override
        void close() {
            registry.close();
            factory.destroy();
        }
    }

    /** This project's Redis registry with {@code notify(false)}: no subscription (releases still publish). */
    /**
     * This project on the same Lettuce factory seen through a plain {@code RedisConnectionFactory}, so that the
     * store calls its scripts on a connection of the factory per call, as it does on Jedis (and did on Lettuce
     * before issue 24), rather than on the factory's shared native connection: the two paths side by side.
     */
    public static class ThisProjectViaFactory extends ThisProject {
        @Override
        void open(RedisServerProcess server) {
            factory = connectionFactory(server);
            LettuceConnectionFactory lettuce = factory;
            RedisConnectionFactory plain = new RedisConnectionFactory() {
                @Override
                public RedisConnection getConnection() {
                    return lettuce.getConnection();
                }

                @Override
                public RedisClusterConnection getClusterConnection() {
                    return lettuce.getClusterConnection();
                }

                @Override
                public RedisSentinelConnection getSentinelConnection() {
                    return lettuce.getSentinelConnection();
                }

                @Override
                public boolean getConvertPipelineAndTxResults() {
                    return lettuce.getConvertPipelineAndTxResults();
                }

                @Override
                public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
                    return lettuce.translateExceptionIfPossible(ex);
                }
            };
            registry = dev.locks.redis.RedisLockRegistry.builder(plain).cleanupInterval(Duration.ZERO).build();
        }
    }

    public static class ThisProjectPolling extends ThisProject {
        @Override
        boolean notifies() {
            return false;
        }
    }

    /** Spring Integration's {@code RedisLockRegistry}, in the mode of the subclass. */
    public abstract static class SpringIntegration extends WithServer {
        LettuceConnectionFactory factory;
        org.springframework.integration.redis.util.RedisLockRegistry registry;

        @Override
        void open(RedisServerProcess server) {
            factory = connectionFactory(server);
            registry = new org.springframework.integration.redis.util.RedisLockRegistry(factory, "si-locks", LEASE);
            registry.setRedisLockType(type());
        }

        abstract RedisLockType type();

        @Override
        void close() {
            registry.destroy();
            factory.destroy();
        }
    }

    /** Waiters poll. */
    public static class SpringIntegrationSpin extends SpringIntegration {
        @Override
        RedisLockType type() {
            return RedisLockType.SPIN_LOCK;
        }
    }

    /** Waiters are woken by a publish (Spring Integration's default). */
    public static class SpringIntegrationPubSub extends SpringIntegration {
        @Override
        RedisLockType type() {
            return RedisLockType.PUB_SUB_LOCK;
        }
    }

    /** Redisson with its defaults. */
    public static class RedissonState extends WithServer {
        RedissonClient client;

        @Override
        void open(RedisServerProcess server) {
            Config config = new Config();
            config.useSingleServer().setAddress(server.uri());
            client = Redisson.create(config);
        }

        @Override
        void close() {
            client.shutdown();
        }
    }

    /** ShedLock's provider on Spring Data Redis. */
    public static class ShedLock extends WithServer {
        LettuceConnectionFactory factory;
        RedisLockProvider provider;

        @Override
        void open(RedisServerProcess server) {
            factory = connectionFactory(server);
            provider = new RedisLockProvider(factory, "bench");
        }

        @Override
        void close() {
            factory.destroy();
        }
    }

    /**
     * The floor: what a lock needs at the least, on raw Lettuce. One key: {@code SET key token NX PX} and a Lua
     * compare-and-delete. Several keys: one Lua script that sets them all or none, and one that deletes those
     * still carrying the token: one round trip each way, as for one key.
     */
    public static class Floor extends WithServer {
        static final String SET_ALL = """
                for i, key in ipairs(KEYS) do
                  if redis.call('set', key, ARGV[1], 'NX', 'PX', ARGV[2]) == false then
                    for j = 1, i - 1 do redis.call('del', KEYS[j]) end
                    return 0
                  end
                end
                return 1""";
        static final String DELETE_OWN = """
                local n = 0
                for _, key in ipairs(KEYS) do
                  if redis.call('get', key) == ARGV[1] then n = n + redis.call('del', key) end
                end
                return n""";

        RedisClient client;
        StatefulRedisConnection<String, String> connection;
        RedisCommands<String, String> commands;
        String setAll;
        String deleteOwn;

        @Override
        void open(RedisServerProcess server) {
            client = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
            client.setOptions(ClientOptions.create());
            connection = client.connect();
            commands = connection.sync();
            setAll = commands.scriptLoad(SET_ALL);
            deleteOwn = commands.scriptLoad(DELETE_OWN);
        }

        boolean setAll(String[] keys, String token) {
            Long set = commands.evalsha(setAll, ScriptOutputType.INTEGER, keys, token, Long.toString(LEASE.toMillis()));
            return set == 1L;
        }

        long deleteOwn(String[] keys, String token) {
            return commands.evalsha(deleteOwn, ScriptOutputType.INTEGER, keys, token);
        }

        @Override
        void close() {
            connection.close();
            client.shutdown();
        }

    }
}
