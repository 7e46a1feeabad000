package dev.locks.benchmarks.jdbc;

import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The clients of the JDBC benchmarks, one state per implementation, each with a database server (PostgreSQL or
 * MariaDB: {@link Database#db}) and a pool of its own ({@link DatabasePool}; a fork builds only the state its
 * benchmark uses).
 */
public final class JdbcClients {

    private JdbcClients() {
    }

    /** Which database the trial runs on: {@code -p db=mariadb}; PostgreSQL unless told. */
    @State(Scope.Benchmark)
    public static class Database {
        @Param({DatabasePool.POSTGRESQL})
        public String db;
    }

    /** A server and pool for the trial, and the client {@link #open} makes on it. */
    @State(Scope.Benchmark)
    public abstract static class WithServer {
        private DatabasePool postgres;

        @Setup(Level.Trial)
        public final void start(Database database) {
            postgres = DatabasePool.start(database.db);
            open(postgres);
        }

        @TearDown(Level.Trial)
        public final void stop() {
            try {
                close();
            } finally {
                postgres.close();
            }
        }

        abstract void open(DatabasePool postgres);

        abstract void close();
    }

    /** This project's registry with its defaults (waiters woken by NOTIFY, 2 connections of its own). */
    public static class ThisProject extends WithServer {
        dev.locks.jdbc.JdbcLockRegistry registry;

        @Override
        void open(DatabasePool postgres) {
            registry = postgres.thisProject(true);
        }

        @Override
        void close() {
            registry.close();
        }
    }

    /**
     * This project's registry with 4 connections of its own ({@code connections(4)}, {@code
     * locks.jdbc.connections}): one per thread at 4 threads, where the default 2 make threads queue.
     */
    public static class ThisProjectFourConnections extends ThisProject {
        @Override
        void open(DatabasePool postgres) {
            registry = postgres.thisProjectBuilder(true).connections(4).build();
        }
    }

    /** Spring Integration's {@code JdbcLockRegistry} on its {@code DefaultLockRepository}. */
    public static class SpringIntegration extends WithServer {
        org.springframework.integration.jdbc.lock.JdbcLockRegistry registry;

        @Override
        void open(DatabasePool postgres) {
            registry = postgres.springIntegration();
        }

        @Override
        void close() {
            // the repository holds nothing but the pool's connections, closed with the pool
        }
    }

    /** ShedLock's {@code JdbcTemplateLockProvider}. */
    public static class ShedLock extends WithServer {
        JdbcTemplateLockProvider provider;

        @Override
        void open(DatabasePool postgres) {
            provider = postgres.shedLock();
        }

        @Override
        void close() {
            // nothing of its own
        }
    }
}
