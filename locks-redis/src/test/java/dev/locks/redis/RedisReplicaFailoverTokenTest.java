package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.Lease;
import dev.locks.redis.test.RedisConnections;
import dev.locks.redis.test.RedisServer;
import dev.locks.redis.test.TcpProxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A single Redis with a replica (Sentinel-style): replication is asynchronous, so a promoted replica may lack
 * the fencing counter's last increments. Tokens must still go forward for every key (SPEC 3): the server's
 * clock floors every token, on one server as on a Cluster.
 */
class RedisReplicaFailoverTokenTest {

    private static final List<String> KEYS = List.of("fa", "fb", "fc");

    @Test
    void tokensOfEveryKeyShouldGoForwardAfterAReplicaMissingTheLastOnesIsPromoted() {
        try (RedisServer primary = RedisServer.start(); RedisServer replica = RedisServer.start();
                TcpProxy link = TcpProxy.to(primary.port())) {
            replica.command("REPLICAOF", "127.0.0.1", Integer.toString(link.port()));
            Map<String, Long> issued = new HashMap<>();
            LettuceConnectionFactory onPrimary = RedisConnections.connectionFactory(primary.port());
            try (RedisLockRegistry registry = RedisLockRegistry.builder(onPrimary).notify(false).build()) {
                cycles(registry, 20, issued);
                await().atMost(Duration.ofSeconds(20)).until(() -> replicated(primary, replica));
                link.cut(); // the replica misses what follows, as asynchronous replication allows
                cycles(registry, 100, issued);
            } finally {
                onPrimary.destroy();
            }
            replica.command("REPLICAOF", "NO", "ONE"); // promoted, as Sentinel would
            primary.kill();

            LettuceConnectionFactory onReplica = RedisConnections.connectionFactory(replica.port());
            try (RedisLockRegistry registry = RedisLockRegistry.builder(onReplica).notify(false).build()) {
                for (String key : KEYS) {
                    try (Lease lease = registry.acquire(List.of(key))) {
                        assertThat(lease.fencingToken()).as("the token of %s after the failover", key)
                                .isGreaterThan(issued.get(key));
                    }
                }
            } finally {
                onReplica.destroy();
            }
        }
    }

    /** {@code count} acquire-release cycles over the keys; the greatest token of each key into {@code issued}. */
    private static void cycles(RedisLockRegistry registry, int count, Map<String, Long> issued) {
        for (int i = 0; i < count; i++) {
            String key = KEYS.get(i % KEYS.size());
            try (Lease lease = registry.acquire(List.of(key))) {
                issued.merge(key, lease.fencingToken(), Math::max);
            }
        }
    }

    private static boolean replicated(RedisServer primary, RedisServer replica) {
        Object onReplica = replica.command("GET", "locks:fencing");
        return onReplica != null && onReplica.equals(primary.command("GET", "locks:fencing"));
    }
}
