package dev.locks.jdbc;

import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.failure;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeOptions;
import dev.locks.LockUnavailableException;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.contract.ComputeCacheStall;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.time.Duration;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The database stops (pg_ctl stop -m immediate, as in a crash) and comes back: in between, every caller gets a
 * {@link LockUnavailableException}, those waiting on either node included (none is left hanging); afterwards the
 * same caches work again, and listen again, without a restart.
 */
class JdbcComputeOutageTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration TTL = Duration.ofMinutes(1);
    private static final Duration RECOVERY = Duration.ofSeconds(30);

    private final ComputeCacheCallers callers = new ComputeCacheCallers();
    private JdbcComputeCache a;
    private JdbcComputeCache b;

    @BeforeEach
    void startNodes() {
        ComputeOptions defaults = ComputeOptions.defaults().withTtl(TTL).withComputeTimeout(Duration.ofMinutes(1));
        a = JdbcComputeCache.builder(postgres.dataSource()).initializeSchema(true).timeout(Duration.ofSeconds(2))
                .defaultOptions(defaults).build();
        b = JdbcComputeCache.builder(postgres.server().dataSource()).timeout(Duration.ofSeconds(2))
                .defaultOptions(defaults).build();
        await().atMost(RECOVERY).until(() -> a.store().listenerConfirmations() == 1
                && b.store().listenerConfirmations() == 1);
    }

    @AfterEach
    void stopNodes() throws InterruptedException {
        callers.close();
        a.close();
        b.close();
    }

    @Test
    void outageShouldFailEveryCallerAndEverythingShouldWorkAgainAfterARestart() {
        ComputeCacheStall<String> computation = ComputeCacheStall.returning("v");
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, computation));
        computation.awaitEntered();
        Future<String> sameNode = callers.start("bob", () -> a.fetchOrCompute("k", TTL, () -> "bob"));
        awaitWaiters(a, "k", 1);
        Future<String> otherNode = callers.start("carol", () -> b.fetchOrCompute("k", TTL, () -> "carol"));
        awaitWaiters(b, "k", 1);
        Future<String> otherNodeToo = callers.start("dave", () -> b.fetchOrCompute("k", TTL, () -> "dave"));
        awaitWaiters(b, "k", 2);

        postgres.server().stop();

        assertThat(failure(otherNode)).as("waiting for another node, it looks at the database at least once a second")
                .isInstanceOf(LockUnavailableException.class);
        assertThat(failure(otherNodeToo)).isSameAs(failure(otherNode));
        assertThatThrownBy(() -> a.fetchOrCompute("other", TTL, () -> "v")).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("could not read 'other'").hasMessageContaining("locks_value");
        assertThatThrownBy(() -> b.begin("other", TTL, null)).isInstanceOf(LockUnavailableException.class);
        assertThatThrownBy(() -> b.invalidate("other")).isInstanceOf(LockUnavailableException.class);
        computation.release();
        assertThat(failure(computer)).as("its value could not be stored").isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("could not store the value of 'k'");
        assertThat(failure(sameNode)).isSameAs(failure(computer));
        assertThat(a.computations()).isEmpty();
        assertThat(b.computations()).isEmpty();

        postgres.server().restart();

        // (not "k": unlike a Redis without persistence, the database kept its miss, whose computer could not
        // store its value; that miss ends with its compute timeout, as any computer's that died would)
        await().atMost(RECOVERY).ignoreExceptions()
                .until(() -> "fresh".equals(a.fetchOrCompute("after", TTL, () -> "fresh")));
        await().atMost(RECOVERY).until(() -> a.store().listenerConfirmations() == 2
                && b.store().listenerConfirmations() == 2);
        ComputeCacheStall<String> again = ComputeCacheStall.returning("again");
        Future<String> computerAgain = callers.start("alice", () -> a.fetchOrCompute("k2", TTL, again));
        again.awaitEntered();
        Future<String> waiterAgain = callers.start("carol", () -> b.fetchOrCompute("k2", TTL, () -> "carol"));
        awaitWaiters(b, "k2", 1);
        again.release();
        assertThat(result(computerAgain)).isEqualTo("again");
        assertThat(result(waiterAgain)).isEqualTo("again");
    }
}
