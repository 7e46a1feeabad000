package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.contract.ComputeCacheCallers;
import dev.locks.jdbc.test.PostgresServerExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One computation across JVMs: this test's JVM and a {@link JdbcComputeWorker} JVM it starts, on one PostgreSQL. */
class JdbcComputeCrossJvmTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final int CALLERS_PER_JVM = 20;

    private Process worker;

    @AfterEach
    void stopWorker() throws InterruptedException {
        if (worker != null) {
            worker.destroyForcibly();
            worker.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void concurrentMissesSplitBetweenTwoJvmsShouldComputeOnce() throws Exception {
        try (Connection connection = postgres.server().connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS computations (jvm text)");
            statement.execute("TRUNCATE computations");
        }
        try (JdbcComputeCache here = JdbcComputeCache.builder(postgres.dataSource()).initializeSchema(true).build()) {
            worker = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                    "-cp", System.getProperty("java.class.path"), JdbcComputeWorker.class.getName(),
                    postgres.server().jdbcUrl(), "quote", Integer.toString(CALLERS_PER_JVM))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(line(out)).isEqualTo("READY");

            try (OutputStream go = worker.getOutputStream()) {
                go.write("GO\n".getBytes(StandardCharsets.UTF_8));
            }
            TreeSet<String> valuesHere = ComputeCacheCallers.fetchAtOnce(here, "quote", CALLERS_PER_JVM,
                    JdbcComputeWorker.computation(postgres.dataSource(), "test's"));

            assertThat(line(out)).as("the worker JVM's callers got the same value").isEqualTo("RESULTS " + valuesHere);
            assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(worker.exitValue()).isZero();
            assertThat(valuesHere).hasSize(1);
            assertThat(postgres.server().queryLong("SELECT count(*) FROM computations"))
                    .as("computations in both JVMs, counted in the database").isEqualTo(1);
        }
    }

    private static String line(BufferedReader out) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (java.io.IOException e) {
                return null;
            }
        }).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }
}
