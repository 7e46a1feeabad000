package dev.locks.benchmarks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The benchmark's PostgreSQL (a real server of its own): every implementation's tables are there, and each
 * implementation's two nodes exclude each other on them, as the lock cycle and the hand-off assume. {@link
 * MariaDbPoolTest} asks the same of the benchmark's MariaDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabasePoolTest {

    private DatabasePool postgres;

    /** The database of the class's server. */
    String db() {
        return DatabasePool.POSTGRESQL;
    }

    @BeforeAll
    void start() {
        postgres = DatabasePool.start(db());
    }

    @AfterAll
    void stop() {
        postgres.close();
    }

    @Test
    void startShouldCreateTheRivalsTablesFromWhatTheyShip() throws SQLException {
        assertThat(RivalTables.springIntegrationScript()).contains("CREATE TABLE INT_LOCK");
        assertThat(postgres.dataSource().getConnection().getMetaData().getDatabaseProductName())
                .containsIgnoringCase(db());

        assertThat(tables()).contains("int_lock", "shedlock");
    }

    @Test
    void thisProjectsNodesShouldExcludeEachOther() throws SQLException {
        try (var a = postgres.thisProject(true); var b = postgres.thisProject(true)) {
            assertThat(tables()).contains("locks_lock");
            try (Lease held = a.acquire(List.of("pool-test:ours"))) {
                assertThat(b.tryAcquire(List.of("pool-test:ours"))).isEmpty();
            }
            Optional<Lease> after = b.tryAcquire(List.of("pool-test:ours"));
            assertThat(after).isPresent();
            after.get().close();
        }
    }

    @Test
    void springIntegrationsNodesShouldExcludeEachOther() {
        Lock a = postgres.springIntegration().obtain("pool-test:si");
        Lock b = postgres.springIntegration().obtain("pool-test:si");
        a.lock();
        try {
            assertThat(b.tryLock()).as("the other node, while the first holds it").isFalse();
        } finally {
            a.unlock();
        }
        assertThat(b.tryLock()).isTrue();
        b.unlock();
    }

    @Test
    void shedLocksNodesShouldExcludeEachOther() {
        JdbcTemplateLockProvider a = postgres.shedLock();
        JdbcTemplateLockProvider b = postgres.shedLock();
        SimpleLock held = a.lock(config()).orElseThrow();
        assertThat(b.lock(config())).as("the other node, while the first holds it").isEmpty();
        held.unlock();
        b.lock(config()).orElseThrow().unlock();
    }

    private static LockConfiguration config() {
        return new LockConfiguration(Instant.now(), "pool-test:shedlock", DatabasePool.LEASE, Duration.ZERO);
    }

    private List<String> tables() throws SQLException {
        String schema = DatabasePool.POSTGRESQL.equals(db()) ? "'public'" : "DATABASE()";
        try (Connection connection = postgres.dataSource().getConnection();
                ResultSet result = connection.createStatement().executeQuery(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = " + schema)) {
            List<String> names = new java.util.ArrayList<>();
            while (result.next()) {
                names.add(result.getString(1).toLowerCase(java.util.Locale.ROOT));
            }
            return names;
        }
    }
}
