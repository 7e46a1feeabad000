package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locks.spi.RemoteLockStore;
import dev.locks.spi.RemoteLockStore.Attempt;
import dev.locks.spi.RemoteLockStore.Owner;
import dev.locks.spi.RemoteLockStore.Ownership;
import dev.locks.spi.RemoteLockStore.RemoteLock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rows behind shared and counted locks on a database without stored routines (MariaDB, MySQL, H2), which the
 * registry's suites do not see: a row per holder in the listing, force release and the sweep deleting holders, the
 * last release freeing the key. Nested in each database's two-node test ({@link H2SharedLocksTest}, {@link
 * MariaDbSharedLocksTest}).
 */
abstract class StatementSharedStoreContract {

    private static final Owner A = new Owner("n1:1", "a");
    private static final Owner B = new Owner("n2:1", "b");
    private static final Owner C = new Owner("n3:1", "c");
    private static final long LONG = 60_000;

    private StatementLockStore store;

    protected abstract DataSource dataSource();

    protected abstract Dialect dialect();

    @BeforeEach
    void openStore() throws Exception {
        Schema schema = new Schema("locks_", dialect());
        schema.initialize(dataSource());
        store = new StatementLockStore(dataSource(), schema, "app:", 2, 5_000, 0, 30_000);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private Attempt shared(Owner owner, int permits, long leaseMillis, String... keys) {
        return store.tryAcquireShared(List.of(keys), owner, leaseMillis, permits, null,
                RemoteLockStore.UNBOUNDED_WAIT);
    }

    private long holderRows() throws Exception {
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM locks_holder")) {
            row.next();
            return row.getLong(1);
        }
    }

    @Test
    void theListingShouldShowEachHolderWithItsOwnTokenAndAnExclusiveAcquireOrAnotherCountBeRefused() {
        Attempt a = shared(A, RemoteLockStore.SHARED, LONG, "k");
        Attempt b = shared(B, RemoteLockStore.SHARED, LONG, "k");
        assertThat(a.isTaken()).isTrue();
        assertThat(b.token()).isGreaterThan(a.token());

        List<RemoteLock> listed = store.scan(10);
        assertThat(listed).extracting(RemoteLock::key).containsExactly("k", "k");
        assertThat(listed).extracting(RemoteLock::ownerId).containsExactly(A.id(), B.id());
        assertThat(listed).extracting(RemoteLock::token).containsExactly(a.token(), b.token());
        assertThat(store.scan(10, 1)).hasSize(1);
        assertThat(store.get("k").ownerId()).isEqualTo(A.id());

        assertThat(store.tryAcquire(List.of("k"), C, LONG).heldKey()).isEqualTo("k");
        Attempt counted = shared(C, 3, LONG, "k");
        assertThat(counted.isTaken()).isFalse();
        assertThat(counted.heldPermits()).isEqualTo(RemoteLockStore.SHARED);
    }

    @Test
    void theLastHolderReleasedShouldFreeTheKeyForAnExclusiveAcquire() {
        shared(A, 2, LONG, "k", "j");
        shared(B, 2, LONG, "k");
        assertThat(shared(C, 2, LONG, "k").isTaken()).isFalse();

        assertThat(store.releaseShared(List.of(new Ownership("k", A.id(), LONG), new Ownership("j", A.id(), LONG))))
                .isEmpty();
        assertThat(store.tryAcquire(List.of("k"), C, LONG).isTaken()).isFalse();
        assertThat(store.tryAcquire(List.of("j"), C, LONG).isTaken()).isTrue();
        assertThat(store.releaseShared(List.of(new Ownership("k", B.id(), LONG)))).isEmpty();
        assertThat(store.tryAcquire(List.of("k"), C, LONG).isTaken()).isTrue();
        assertThat(store.releaseShared(List.of(new Ownership("k", B.id(), LONG)))).containsExactly("k");
    }

    @Test
    void aForcedReleaseShouldDeleteEveryHolder() throws Exception {
        shared(A, RemoteLockStore.SHARED, LONG, "k");
        shared(B, RemoteLockStore.SHARED, LONG, "k");

        assertThat(store.forceRelease("k")).isTrue();

        assertThat(holderRows()).isZero();
        assertThat(store.scan(10)).isEmpty();
        assertThat(store.renewShared(List.of(new Ownership("k", A.id(), LONG)))).containsExactly("k");
        assertThat(store.tryAcquire(List.of("k"), C, LONG).isTaken()).isTrue();
    }

    @Test
    void anExpiredPermitShouldBeFreeForAnotherAndTheSweepShouldDeleteIt() throws Exception {
        shared(A, 2, 200, "k");
        shared(B, 2, LONG, "k");
        assertThat(store.renewShared(List.of(new Ownership("k", B.id(), LONG)))).isEmpty();

        await().atMost(Duration.ofSeconds(10)).until(() -> shared(C, 2, LONG, "k").isTaken());

        assertThat(store.renewShared(List.of(new Ownership("k", A.id(), LONG)))).containsExactly("k");
        store.purge(100);
        assertThat(holderRows()).isEqualTo(2);
        assertThat(store.scan(10)).extracting(RemoteLock::ownerId).containsExactlyInAnyOrder(B.id(), C.id());
    }
}
