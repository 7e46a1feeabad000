package dev.locks.redis.test;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Lettuce connection factories for tests: short command and connect timeouts, so that an outage shows in
 * half a second rather than Lettuce's default minute, and a constant reconnect delay of 100 ms, so that
 * recovery after a restart does not wait for an exponential back-off.
 */
public final class RedisConnections {

    /** The command and connect timeout of the factories made here. */
    public static final Duration TIMEOUT = Duration.ofMillis(500);

    private RedisConnections() {
    }

    /** A started factory on {@code 127.0.0.1:port}; {@link LettuceConnectionFactory#destroy()} it after use. */
    public static LettuceConnectionFactory connectionFactory(int port) {
        return connectionFactory(port, TIMEOUT);
    }

    public static LettuceConnectionFactory connectionFactory(int port, Duration timeout) {
        return connectionFactory(port, timeout, DisconnectedBehavior.DEFAULT);
    }

    /** With {@link DisconnectedBehavior#REJECT_COMMANDS}, commands fail at once while disconnected. */
    public static LettuceConnectionFactory connectionFactory(int port, Duration timeout,
            DisconnectedBehavior disconnected) {
        ClientResources resources = resources();
        LettuceClientConfiguration client = client(timeout, resources, ClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .disconnectedBehavior(disconnected)
                .build());
        return started(new OwningConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port), client,
                resources));
    }

    /**
     * A started factory on the cluster whose nodes listen on {@code ports}: {@link #TIMEOUT}, commands rejected
     * at once while a node is disconnected, and adaptive plus periodic (every second) topology refresh, so that
     * a failover shows within a second or two.
     */
    public static LettuceConnectionFactory clusterConnectionFactory(int... ports) {
        return clusterConnectionFactory(ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(Duration.ofSeconds(1))
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                .build(), ports);
    }

    /**
     * As {@link #clusterConnectionFactory(int...)}, but with Lettuce's default topology refresh, as Spring Boot
     * builds the client unless {@code spring.data.redis.lettuce.cluster.refresh.*} is set: no periodic refresh, no
     * adaptive triggers; only what the lock store itself does shows a failover to it.
     */
    public static LettuceConnectionFactory clusterConnectionFactoryWithoutRefresh(int... ports) {
        return clusterConnectionFactory(ClusterTopologyRefreshOptions.builder().build(), ports);
    }

    private static LettuceConnectionFactory clusterConnectionFactory(ClusterTopologyRefreshOptions refresh,
            int... ports) {
        ClientResources resources = resources();
        LettuceClientConfiguration client = client(TIMEOUT, resources, ClusterClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
                .disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS)
                .topologyRefreshOptions(refresh)
                .build());
        RedisClusterConfiguration configuration = new RedisClusterConfiguration();
        for (int port : ports) {
            configuration.clusterNode("127.0.0.1", port);
        }
        return started(new OwningConnectionFactory(configuration, client, resources));
    }

    private static ClientResources resources() {
        return DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .reconnectDelay(Delay.constant(Duration.ofMillis(100)))
                .build();
    }

    private static LettuceClientConfiguration client(Duration timeout, ClientResources resources,
            ClientOptions options) {
        return LettuceClientConfiguration.builder()
                .commandTimeout(timeout)
                .shutdownTimeout(Duration.ZERO)
                .clientResources(resources)
                .clientOptions(options)
                .build();
    }

    private static LettuceConnectionFactory started(LettuceConnectionFactory factory) {
        factory.afterPropertiesSet();
        return factory;
    }

    /** A factory that also shuts down the client resources it was given, when it is destroyed. */
    private static final class OwningConnectionFactory extends LettuceConnectionFactory {

        private final ClientResources resources;

        OwningConnectionFactory(RedisConfiguration server, LettuceClientConfiguration client,
                ClientResources resources) {
            super(server, client);
            this.resources = resources;
        }

        @Override
        public void destroy() {
            try {
                super.destroy();
            } finally {
                resources.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }
}
