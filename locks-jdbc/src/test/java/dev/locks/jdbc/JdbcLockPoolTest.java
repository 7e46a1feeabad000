package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The registry runs on connections of its own, outside the callers' transactions: callers that hold every
 * pooled connection in open transactions while they lock do not deadlock (ShedLock's jOOQ provider let two
 * pods take one lock by joining the caller's transaction; a registry that borrows from the pool per call
 * would wait for a connection forever, or for the pool's connection timeout).
 */
class JdbcLockPoolTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(30);

    private HikariDataSource pool;
    private JdbcLockRegistry registry;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.server().jdbcUrl());
        config.setUsername("postgres");
        config.setMaximumPoolSize(5); // 2 + 1 for the registry, 2 for the application
        config.setConnectionTimeout(250);
        pool = new HikariDataSource(config);
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS account (id int PRIMARY KEY, balance int)");
            statement.execute("TRUNCATE account");
        }
        registry = JdbcLockRegistry.builder(pool).initializeSchema(true).cleanupInterval(Duration.ZERO).build();
        await().atMost(BOUND).until(() -> registry.store().listenerConfirmations() > 0
                && registry.store().connections().idleCount() == 2);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        registry.close();
        pool.close();
    }

    @Test
    void callersHoldingEveryPooledConnectionInTransactionsShouldStillLock() throws Exception {
        AcquireOptions patient = AcquireOptions.defaults().withInfiniteRetries().withWaitTime(BOUND);
        CountDownLatch allInTransactions = new CountDownLatch(2);
        CountDownLatch exhausted = new CountDownLatch(1);
        List<Future<Integer>> callers = new ArrayList<>();
        for (int caller = 0; caller < 2; caller++) {
            int id = caller;
            callers.add(threads.submit(() -> {
                try (Connection connection = pool.getConnection()) {
                    connection.setAutoCommit(false);
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("INSERT INTO account VALUES (" + id + ", 0)");
                    }
                    allInTransactions.countDown();
                    exhausted.await();
                    int rounds = 0;
                    for (int i = 0; i < 20; i++) { // both callers contend for the same key, inside their transactions
                        try (Lease lease = registry.acquire(List.of("account:shared"), patient)) {
                            rounds++;
                        }
                    }
                    connection.commit();
                    return rounds;
                }
            }));
        }
        assertThat(allInTransactions.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class); // the pool is exhausted
        exhausted.countDown();

        for (Future<Integer> caller : callers) {
            assertThat(caller.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(20);
        }
    }

    @Test
    void aLockShouldNotBeInTheCallersTransaction() throws Exception {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("INSERT INTO account VALUES (7, 0)");
            }
            Lease lease = registry.acquire(List.of("account:7"));
            assertThat(lockRows()).isEqualTo(1); // visible to others before the caller commits: committed on its own

            connection.rollback();

            assertThat(lockRows()).isEqualTo(1); // the caller's rollback does not undo the lock
            assertThat(lease.isHeld()).isTrue();
            lease.close();
            assertThat(lockRows()).isZero();
        }
    }

    private static long lockRows() throws SQLException {
        return postgres.server().queryLong("SELECT count(*) FROM locks_lock");
    }
}
