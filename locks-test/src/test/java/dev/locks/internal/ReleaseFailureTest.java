package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.spi.RemoteLockStore;
import dev.locks.test.InMemoryLockServer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A store whose release fails in a way it does not document (anything but a {@code LockUnavailableException}, which
 * is retried in the background) still leaves nothing behind in the node: the closed lease's keys leave the node's
 * table, so that no local entry outlives its lease, blocking this node's callers and renewed by the watchdog (a
 * crowd of 5,000 asynchronous acquires on a saturated machine left such an entry, which held the key for ten
 * minutes); the store's own copy expires with its lease.
 */
class ReleaseFailureTest {

    private final InMemoryLockServer server = new InMemoryLockServer(LocksClock.system());
    private EngineLockRegistry node;

    @AfterEach
    void tearDown() {
        node.close();
    }

    @Test
    void aReleaseTheStoreFailsUnexpectedlyShouldStillLeaveTheNodesTable() {
        Failing store = new Failing(server.node(true));
        node = new EngineLockRegistry(new LockEngine.Settings("failing", AcquireOptions.defaults(), Duration.ZERO, 100,
                true, LocksClock.system(), LocksObserver.NONE), store) {
        };
        Lease lease = node.acquire(List.of("a", "b"), AcquireOptions.defaults()
                .withLockTimeout(Duration.ofMillis(300)));
        store.failReleases = true;

        assertThatThrownBy(lease::close).isInstanceOf(IllegalStateException.class);

        assertThat(node.heldCount()).as("entries left in the node's table").isZero();
        store.failReleases = false;
        Lease again = node.acquire(List.of("a"), AcquireOptions.defaults().withInfiniteRetries()
                .withWaitTime(Duration.ofSeconds(10)));
        assertThat(again.fencingToken()).isGreaterThan(lease.fencingToken());
        again.close();
        Lease solo = node.acquire(List.of("solo"));
        store.failReleases = true;
        assertThatThrownBy(solo::close).isInstanceOf(IllegalStateException.class);
        assertThat(node.heldCount()).isZero();
    }

    /** A node of the in-memory server whose releases can fail with an exception no store documents. */
    private static final class Failing extends DelegatingLockStore {
        volatile boolean failReleases;

        Failing(RemoteLockStore node) {
            super(node);
        }

        @Override
        public Set<String> release(List<Ownership> keys) {
            if (failReleases) {
                throw new IllegalStateException("the client's connection is closed");
            }
            return node.release(keys);
        }
    }
}
