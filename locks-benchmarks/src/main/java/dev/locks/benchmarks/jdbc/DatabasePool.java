package dev.locks.benchmarks.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.PostgresServer;
import java.time.Duration;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * A database server of the benchmark's own, PostgreSQL or MariaDB ({@link #start(String)}), never the machine's
 * server: locks-jdbc's test {@link PostgresServer} ({@code initdb} and {@code pg_ctl} on a free loopback port in a
 * temporary directory, as {@code postgres} when run as root) or {@link MariaDbServer} ({@code mariadb-install-db}
 * and {@code mariadbd} likewise, reached through MariaDB Connector/J), with a HikariCP pool on it, as a Spring Boot application would have it (Hikari's
 * defaults: at most 10 connections), and every implementation's tables. Each implementation is built on the
 * pool the way its users build it, the lock lease 30 seconds everywhere.
 */
public final class DatabasePool implements AutoCloseable {

    /** How long a lock lives in the database if its holder never releases it. */
    public static final Duration LEASE = Duration.ofSeconds(30);

    /** The databases {@link #start(String)} knows, as the benchmarks' {@code db} parameter names them. */
    public static final String POSTGRESQL = "postgresql";
    public static final String MARIADB = "mariadb";

    private final AutoCloseable server;
    private final HikariDataSource pool;

    private DatabasePool(AutoCloseable server, HikariDataSource pool) {
        this.server = server;
        this.pool = pool;
    }

    /** {@link #start(String)} on PostgreSQL. */
    public static DatabasePool start() {
        return start(POSTGRESQL);
    }

    /**
     * Starts a server of {@code db} ({@value #POSTGRESQL} or {@value #MARIADB}), opens the pool and creates every
     * implementation's tables.
     */
    public static DatabasePool start(String db) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("locks-bench");
        AutoCloseable server;
        if (POSTGRESQL.equals(db)) {
            PostgresServer postgres = PostgresServer.start();
            config.setJdbcUrl(postgres.jdbcUrl());
            config.setUsername("postgres");
            server = postgres;
        } else if (MARIADB.equals(db)) {
            MariaDbServer mariadb = MariaDbServer.start();
            config.setJdbcUrl(mariadb.jdbcUrl(MariaDbServer.Driver.MARIADB));
            config.setUsername("root");
            server = mariadb;
        } else {
            throw new IllegalArgumentException("no such database: " + db + " (" + POSTGRESQL + " or " + MARIADB + ")");
        }
        try {
            HikariDataSource pool = new HikariDataSource(config);
            RivalTables.springIntegration(pool, db);
            RivalTables.shedLock(pool, db);
            return new DatabasePool(server, pool);
        } catch (RuntimeException e) {
            closeQuietly(server);
            throw e;
        }
    }

    private static void closeQuietly(AutoCloseable server) {
        try {
            server.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop the database server", e);
        }
    }

    public DataSource dataSource() {
        return pool;
    }

    /**
     * This project's registry, its own schema initialised, no periodic sweep; waiters woken by NOTIFY or not
     * (PostgreSQL; other databases have no notifications: other nodes' releases are polled, every 100 ms).
     */
    public dev.locks.jdbc.JdbcLockRegistry thisProject(boolean notify) {
        return thisProject(notify, dev.locks.AcquireOptions.defaults());
    }

    /** {@link #thisProject(boolean)} with these default acquire options. */
    public dev.locks.jdbc.JdbcLockRegistry thisProject(boolean notify, dev.locks.AcquireOptions options) {
        return thisProjectBuilder(notify).defaultOptions(options).build();
    }

    /** The builder of {@link #thisProject(boolean)}, for other settings. */
    public dev.locks.jdbc.JdbcLockRegistry.Builder thisProjectBuilder(boolean notify) {
        return dev.locks.jdbc.JdbcLockRegistry.builder(pool).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .notify(notify).lease(LEASE);
    }

    /**
     * Spring Integration's registry on a {@link DefaultLockRepository} of its own (one node: its own client id),
     * initialised as its application context would, with the pool's transaction manager; waiters poll every
     * 100 ms (its default).
     */
    public JdbcLockRegistry springIntegration() {
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.setTimeToLive((int) LEASE.toMillis());
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        return new JdbcLockRegistry(repository, LEASE);
    }

    /** ShedLock's JDBC provider, with the database's time as its documentation advises. */
    public JdbcTemplateLockProvider shedLock() {
        return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(pool))
                .usingDbTime()
                .build());
    }

    @Override
    public void close() {
        try {
            pool.close();
        } finally {
            closeQuietly(server);
        }
    }
}
