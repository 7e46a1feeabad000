package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import dev.locks.jdbc.test.PostgresServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 27, observation 2: an asynchronous failover. A streaming replica that stopped following its primary
 * before the primary issued its last tokens is promoted: its sequence is behind, yet every key's next token
 * must be greater than every token the old primary issued (the clock floor of the token).
 */
class JdbcFailoverTest {

    private static final List<String> KEYS = List.of("f0", "f1", "f2", "f3", "f4");

    private PostgresServer primary;
    private PostgresServer replica;

    @AfterEach
    void stopServers() {
        if (replica != null) {
            replica.close();
        }
        if (primary != null) {
            primary.close();
        }
    }

    private static JdbcLockRegistry node(PostgresServer server) {
        return JdbcLockRegistry.builder(server.dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .build();
    }

    @Test
    void tokensOfEveryKeyShouldGoOnAboveTheOldPrimarysAfterAPromotionThatLostItsLastValues() throws Exception {
        primary = PostgresServer.start();
        Map<String, Long> issued = new HashMap<>();
        try (JdbcLockRegistry old = node(primary)) {
            takeEach(old, 5, issued);
            replica = PostgresServer.replicaOf(primary);
            takeEach(old, 5, issued);
            replica.stop(); // the replica falls behind: what the primary issues from now on, it never receives
            takeEach(old, 20, issued); // 100 more tokens
        }
        primary.stop(); // the primary is lost
        replica.restart();
        replica.promote();
        long highest = issued.values().stream().mapToLong(Long::longValue).max().orElseThrow();

        try (JdbcLockRegistry promoted = node(replica)) {
            for (String key : KEYS) {
                try (Lease lease = promoted.acquire(List.of(key))) {
                    assertThat(lease.fencingToken()).as("the token of %s after the failover", key)
                            .isGreaterThan(issued.get(key)).isGreaterThan(highest);
                }
            }
        }
    }

    /** Takes and releases each key {@code times} times, recording each key's last token. */
    private static void takeEach(JdbcLockRegistry node, int times, Map<String, Long> issued) {
        for (int i = 0; i < times; i++) {
            for (String key : KEYS) {
                try (Lease lease = node.acquire(List.of(key))) {
                    issued.put(key, lease.fencingToken());
                }
            }
        }
    }
}
