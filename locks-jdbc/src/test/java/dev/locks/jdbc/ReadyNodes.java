package dev.locks.jdbc;

import static org.awaitility.Awaitility.await;

import dev.locks.jdbc.test.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The nodes of a test: registries on one server, each on a data source of its own (its own listening connection),
 * returned once ready (listening, and every one of its own connections open), closed together.
 */
final class ReadyNodes implements AutoCloseable {

    private static final Duration READY = Duration.ofSeconds(60);

    private final PostgresServer server;
    private final List<JdbcLockRegistry> nodes = new ArrayList<>();

    ReadyNodes(PostgresServer server) {
        this.server = server;
    }

    /** A new node with {@code connections} own connections and a round-trip timeout of {@code timeout}. */
    JdbcLockRegistry node(int connections, Duration timeout) {
        JdbcLockRegistry node = JdbcLockRegistry.builder(server.dataSource()).initializeSchema(true)
                .connections(connections).timeout(timeout).cleanupInterval(Duration.ZERO).build();
        nodes.add(node);
        await().atMost(READY).until(() -> node.store().listenerConfirmations() > 0
                && node.store().connections().idleCount() == connections);
        return node;
    }

    List<JdbcLockRegistry> all() {
        return List.copyOf(nodes);
    }

    @Override
    public void close() {
        nodes.forEach(JdbcLockRegistry::close);
    }
}
