package dev.locks.redis.test;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
        ClientResources resources = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .reconnectDelay(Delay.constant(Duration.ofMillis(100)))
                .build();
        LettuceClientConfiguration client = LettuceClientConfiguration.builder()
                .commandTimeout(timeout)
                .shutdownTimeout(Duration.ZERO)
                .clientResources(resources)
                .clientOptions(ClientOptions.builder()
                        .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                        .disconnectedBehavior(disconnected)
                        .build())
                .build();
        LettuceConnectionFactory factory = new OwningConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", port), client, resources);
        factory.afterPropertiesSet();
        return factory;
    }

    /** A factory that also shuts down the client resources it was given, when it is destroyed. */
    private static final class OwningConnectionFactory extends LettuceConnectionFactory {

        private final ClientResources resources;

        OwningConnectionFactory(RedisStandaloneConfiguration server, LettuceClientConfiguration client,
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
