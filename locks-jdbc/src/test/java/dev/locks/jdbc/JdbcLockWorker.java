package dev.locks.jdbc;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import java.time.Duration;
import java.util.List;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The other JVM of {@link JdbcCrossJvmLockTest}, started as
 * {@code java -cp <class path> dev.locks.jdbc.JdbcLockWorker <jdbc url> <key> <lock timeout ms, or infinite> <lease ms>}:
 * takes {@code key} and holds it until it is killed (a SIGTERM runs its shutdown hook, which closes the
 * registry and so releases the key). Prints {@code HELD <token>} once it holds it.
 */
public final class JdbcLockWorker {

    private JdbcLockWorker() {
    }

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(args[0]);
        dataSource.setUser("postgres");
        JdbcLockRegistry registry = JdbcLockRegistry.builder(dataSource).lease(Duration.ofMillis(Long.parseLong(args[3])))
                .cleanupInterval(Duration.ZERO).build();
        Runtime.getRuntime().addShutdownHook(new Thread(registry::close));
        AcquireOptions options = args[2].equals("infinite") ? AcquireOptions.defaults().withInfiniteLockTimeout()
                : AcquireOptions.defaults().withLockTimeout(Duration.ofMillis(Long.parseLong(args[2])));
        Lease lease = registry.acquire(List.of(args[1]), options);
        System.out.println("HELD " + lease.fencingToken());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
