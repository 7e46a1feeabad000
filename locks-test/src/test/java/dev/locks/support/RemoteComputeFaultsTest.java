package dev.locks.support;

import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.failure;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.ComputeFailedException;
import dev.locks.ComputeOptions;
import dev.locks.LockUnavailableException;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.contract.ComputeCacheStall;
import dev.locks.test.InMemoryComputeServer;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a store's failures do to the protocol across nodes, on an {@link InMemoryComputeServer}: an outage fails
 * every caller (none left waiting) and recovers; a lost notice is made up by polling; a value the store cannot
 * write fails the miss on every node; one it cannot read is a miss.
 */
class RemoteComputeFaultsTest {

    private static final Duration TTL = Duration.ofMinutes(1);
    private static final ComputeOptions DEFAULTS =
            ComputeOptions.defaults().withTtl(TTL).withComputeTimeout(Duration.ofMinutes(1));

    private final InMemoryComputeServer server = new InMemoryComputeServer(LocksClock.system());
    private final ComputeCacheCallers callers = new ComputeCacheCallers();
    private final List<ComputeResult> events = new CopyOnWriteArrayList<>();
    private final InMemoryComputeCache a = node();
    private final InMemoryComputeCache b = node();

    @AfterEach
    void stopNodes() throws InterruptedException {
        callers.close();
        assertThat(a.computations()).isEmpty();
        assertThat(b.computations()).isEmpty();
        a.close();
        b.close();
    }

    @Test
    void outageShouldFailEveryCallerOfEveryNodeAndEverythingShouldWorkAgainAfterIt() {
        ComputeCacheStall<String> computation = ComputeCacheStall.returning("v");
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, computation));
        computation.awaitEntered();
        Future<String> sameNode = callers.start("bob", () -> a.fetchOrCompute("k", TTL, () -> "bob"));
        awaitWaiters(a, "k", 1);
        Future<String> otherNode = callers.start("carol", () -> b.fetchOrCompute("k", TTL, () -> "carol"));
        awaitWaiters(b, "k", 1);

        server.down(true);

        assertThat(failure(otherNode)).as("waiting for another node, it looks at the store once a poll")
                .isInstanceOf(LockUnavailableException.class);
        assertThatThrownBy(() -> b.invalidate("other")).isInstanceOf(LockUnavailableException.class);
        computation.release();
        assertThat(failure(computer)).as("its value could not be stored").isInstanceOf(LockUnavailableException.class);
        assertThat(failure(sameNode)).isSameAs(failure(computer));
        assertThat(a.computations()).isEmpty();
        assertThat(b.computations()).isEmpty();

        server.restart(); // without it, alice's compute lock holds the key until its compute timeout ends

        assertThat(a.fetchOrCompute("k", TTL, () -> "after")).isEqualTo("after");
        assertThat(b.fetchOrCompute("k", TTL, () -> "other")).isEqualTo("after");
    }

    @Test
    void waiterWhoseNoticeIsLostShouldStillGetTheValueByPolling() {
        ComputeCacheStall<String> computation = ComputeCacheStall.returning("v");
        Future<String> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, computation));
        computation.awaitEntered();
        Future<String> otherNode = callers.start("bob", () -> b.fetchOrCompute("k", TTL, () -> "bob"));
        awaitWaiters(b, "k", 1);
        server.silent(true);
        int claims = server.calls("claim");

        computation.release();

        assertThat(result(computer)).isEqualTo("v");
        assertThat(result(otherNode)).isEqualTo("v");
        assertThat(server.calls("claim")).as("node B looked again by itself").isGreaterThan(claims);
    }

    @Test
    void valueTheStoreCannotWriteShouldFailTheMissOnEveryNode() {
        server.refuse(BigDecimal.class);
        ComputeCacheStall<BigDecimal> computation = ComputeCacheStall.returning(BigDecimal.ONE);
        Future<BigDecimal> computer = callers.start("alice", () -> a.fetchOrCompute("k", TTL, computation));
        computation.awaitEntered();
        Future<BigDecimal> otherNode = callers.start("bob", () -> b.fetchOrCompute("k", TTL, () -> BigDecimal.TEN));
        awaitWaiters(b, "k", 1);

        computation.release();

        assertThat(failure(computer)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot write");
        assertThat(failure(otherNode)).isInstanceOfSatisfying(ComputeFailedException.class, failed ->
                assertThat(failed.originalClassName()).isEqualTo(IllegalArgumentException.class.getName()));
        assertThat(server.holdsValue("k")).isFalse();
    }

    @Test
    void valueTheStoreCannotReadShouldBeAMissComputedAgainAndCounted() {
        assertThat(a.fetchOrCompute("k", TTL, () -> "v1")).isEqualTo("v1");
        server.corrupt("k");

        assertThat(b.fetchOrCompute("k", TTL, () -> "v2")).isEqualTo("v2");

        assertThat(events).contains(ComputeResult.UNREADABLE);
        assertThat(a.fetchOrCompute("k", TTL, () -> "v3")).isEqualTo("v2");
    }

    @Test
    void closedNodeShouldRefuseCallsAndHearNothingMore() {
        a.close();

        assertThatThrownBy(() -> a.fetchOrCompute("k", TTL, () -> "v")).isInstanceOf(IllegalStateException.class)
                .hasMessage("this InMemoryComputeCache is closed");
        assertThat(b.fetchOrCompute("k", TTL, () -> "v")).isEqualTo("v");
    }

    private InMemoryComputeCache node() {
        LocksObserver observer = new LocksObserver() {
            @Override
            public void onCompute(ComputeResult result, long nanos) {
                events.add(result);
            }
        };
        return InMemoryComputeCache.builder(server.node()).defaultOptions(DEFAULTS).observer(observer)
                .pollInterval(Duration.ofMillis(100)).build();
    }
}
