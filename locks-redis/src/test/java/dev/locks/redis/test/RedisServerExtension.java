package dev.locks.redis.test;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One {@link RedisServer} per test class, started before its first test and stopped after its last. Before
 * each test the server is running (restarted if a test stopped it) and empty. Register it as
 * <pre>{@code @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();}</pre>
 * Connection factories made through it ({@link RedisConnections}: short timeouts) are destroyed with it.
 */
public final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private RedisServer server;
    private LettuceConnectionFactory shared;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!server.isRunning()) {
            server.restart();
        }
        server.flushAll();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        synchronized (factories) {
            factories.forEach(LettuceConnectionFactory::destroy);
            factories.clear();
            shared = null;
        }
        if (server != null) {
            server.close();
        }
    }

    public RedisServer server() {
        return server;
    }

    public int port() {
        return server.port();
    }

    /** The class's shared connection factory, made on first use. */
    public LettuceConnectionFactory connectionFactory() {
        synchronized (factories) {
            if (shared == null) {
                shared = newConnectionFactory();
            }
            return shared;
        }
    }

    /** A connection factory of its own (another "node"), destroyed after the class. */
    public LettuceConnectionFactory newConnectionFactory() {
        LettuceConnectionFactory factory = RedisConnections.connectionFactory(server.port());
        synchronized (factories) {
            factories.add(factory);
        }
        return factory;
    }
}
