package dev.locks.benchmarks.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locks.jdbc.test.PostgresServer;
import java.time.Duration;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * A PostgreSQL server of the benchmark's own (locks-jdbc's test {@link PostgresServer}: {@code initdb} and
 * {@code pg_ctl} on a free loopback port in a temporary directory, as {@code postgres} when run as root; never
 * the machine's server) with a HikariCP pool on it, as a Spring Boot application would have it (Hikari's
 * defaults: at most 10 connections), and every implementation's tables. Each implementation is built on the
 * pool the way its users build it, the lock lease 30 seconds everywhere.
 */
public final class PostgresPool implements AutoCloseable {

    /** How long a lock lives in the database if its holder never releases it. */
    public static final Duration LEASE = Duration.ofSeconds(30);

    private final PostgresServer server;
    private final HikariDataSource pool;

    private PostgresPool(PostgresServer server, HikariDataSource pool) {
        this.server = server;
        this.pool = pool;
    }

    /** Starts a server, opens the pool and creates every implementation's tables. */
    public static PostgresPool start() {
        PostgresServer server = PostgresServer.start();
        try {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(server.jdbcUrl());
            config.setUsername("postgres");
            config.setPoolName("locks-bench");
            HikariDataSource pool = new HikariDataSource(config);
            PostgresTables.springIntegration(pool);
            PostgresTables.shedLock(pool);
            return new PostgresPool(server, pool);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    public DataSource dataSource() {
        return pool;
    }

    /** This project's registry, its own schema initialised, no periodic sweep; waiters woken by NOTIFY or not. */
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
            server.close();
        }
    }
}
