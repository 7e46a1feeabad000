package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The compute cache runs on connections of its own, outside the callers' transactions: callers that hold every
 * pooled connection in open transactions while they fetch or compute still get their values, and a value is
 * stored whether or not the caller's transaction commits.
 */
class JdbcComputePoolTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(1);

    private HikariDataSource pool;
    private JdbcComputeCache cache;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.server().jdbcUrl());
        config.setUsername("postgres");
        config.setMaximumPoolSize(5); // 2 + 1 for the cache, 2 for the application
        config.setConnectionTimeout(250);
        pool = new HikariDataSource(config);
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS quote (id int PRIMARY KEY, price int)");
            statement.execute("TRUNCATE quote");
        }
        cache = JdbcComputeCache.builder(pool).initializeSchema(true).build();
        await().atMost(BOUND).until(() -> cache.store().listenerConfirmations() > 0
                && cache.store().connections().idleCount() == 2);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        cache.close();
        pool.close();
    }

    @Test
    void callersHoldingEveryPooledConnectionInTransactionsShouldStillFetchAndCompute() throws Exception {
        CountDownLatch allInTransactions = new CountDownLatch(2);
        CountDownLatch exhausted = new CountDownLatch(1);
        AtomicInteger computed = new AtomicInteger();
        List<Future<List<String>>> callers = new ArrayList<>();
        for (int caller = 0; caller < 2; caller++) {
            int id = caller;
            callers.add(threads.submit(() -> {
                try (Connection connection = pool.getConnection()) {
                    connection.setAutoCommit(false);
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("INSERT INTO quote VALUES (" + id + ", 0)");
                    }
                    allInTransactions.countDown();
                    exhausted.await();
                    List<String> values = new ArrayList<>();
                    for (int i = 0; i < 20; i++) { // both callers want the same keys, inside their transactions
                        values.add(cache.fetchOrCompute("quote:" + i, TTL, () -> "v" + computed.incrementAndGet()));
                    }
                    connection.commit();
                    return values;
                }
            }));
        }
        assertThat(allInTransactions.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class); // the pool is exhausted
        exhausted.countDown();

        List<String> first = callers.get(0).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(callers.get(1).get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(first);
        assertThat(computed).as("once per key").hasValue(20);
    }

    @Test
    void aValueShouldNotBeInTheCallersTransaction() throws Exception {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("INSERT INTO quote VALUES (7, 0)");
            }
            assertThat(cache.fetchOrCompute("quote:7", TTL, () -> "seven")).isEqualTo("seven");
            assertThat(valueRows()).isEqualTo(1); // visible to others before the caller commits: committed on its own

            connection.rollback();

            assertThat(valueRows()).isEqualTo(1); // the caller's rollback does not undo it
            assertThat(cache.fetchOrCompute("quote:7", TTL, () -> "again")).isEqualTo("seven");
        }
    }

    private static long valueRows() throws SQLException {
        return postgres.server().queryLong("SELECT count(*) FROM locks_value");
    }
}
