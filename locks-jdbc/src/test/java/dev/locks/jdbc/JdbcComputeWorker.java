package dev.locks.jdbc;

import dev.locks.contract.ComputeCacheCallers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The other JVM of {@link JdbcComputeCrossJvmTest}, started as
 * {@code java -cp <class path> dev.locks.jdbc.JdbcComputeWorker <jdbc url> <key> <callers>}: builds its cache
 * and prints {@code READY}; on a {@code GO} line from its standard input, {@code <callers>} threads at once
 * fetch-or-compute {@code <key>} with {@link #computation}; prints {@code RESULTS} and the distinct values they
 * got, and exits.
 */
public final class JdbcComputeWorker {

    /** How long a computation takes, so that every caller of both JVMs comes while it runs. */
    static final Duration COMPUTING = Duration.ofMillis(500);

    private JdbcComputeWorker() {
    }

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(args[0]);
        dataSource.setUser("postgres");
        try (JdbcComputeCache cache = JdbcComputeCache.builder(dataSource).build()) {
            while (cache.store().listenerConfirmations() == 0) {
                Thread.sleep(10);
            }
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"GO".equals(in.readLine())) {
                throw new IllegalStateException("expected GO");
            }
            System.out.println("RESULTS " + ComputeCacheCallers.fetchAtOnce(cache, args[1], Integer.parseInt(args[2]),
                    computation(dataSource, "worker")));
            System.out.flush();
        }
    }

    /** What both JVMs compute: records itself in the table {@code computations}, takes a while, names its JVM. */
    static Supplier<String> computation(DataSource dataSource, String jvm) {
        return () -> {
            try (Connection connection = dataSource.getConnection();
                    PreparedStatement statement = connection.prepareStatement("INSERT INTO computations VALUES (?)")) {
                statement.setString(1, jvm);
                statement.executeUpdate();
                Thread.sleep(COMPUTING.toMillis());
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "computed by the " + jvm + " JVM";
        };
    }
}
