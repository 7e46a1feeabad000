package dev.locks.jdbc;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import java.time.Duration;
import java.util.List;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The other JVM of {@link JdbcCrossJvmLockTest}, started as
 * {@code java -cp <class path> dev.locks.jdbc.JdbcLockWorker <jdbc url> <key> <lock timeout ms, or infinite> <lease ms>
 * [<permits> <count>]}: takes {@code key} (or {@code count} of its {@code permits}, each a lease of its own) and holds
 * it until it is killed (a SIGTERM runs its shutdown hook, which closes the registry and so releases the key).
 * Prints {@code HELD <token>} once it holds it (the last permit's token).
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
        int count = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        if (args.length > 5) {
            options = options.withPermits(Integer.parseInt(args[4]));
        }
        long token = 0;
        for (int i = 0; i < count; i++) {
            token = registry.acquire(List.of(args[1]), options).fencingToken();
        }
        System.out.println("HELD " + token);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
