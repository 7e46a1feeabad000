package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LocksObserver.ComputeResult;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.redis.test.ProcessLines;
import dev.locks.redis.test.RedisServerExtension;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

/** One computation across JVMs: this test's JVM and a {@link RedisComputeWorker} JVM it starts, on one redis-server. */
class RedisComputeCrossJvmTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final int CALLERS_PER_JVM = 50;

    private Process worker;

    @AfterEach
    void stopWorker() throws InterruptedException {
        if (worker != null) {
            worker.destroyForcibly();
            worker.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void hundredConcurrentMissesSplitBetweenTwoJvmsShouldComputeOnce() throws Exception {
        Path log = Files.createTempFile("compute-worker-", ".log");
        worker = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"),
                RedisComputeWorker.class.getName(), Integer.toString(redis.port()), "quote",
                Integer.toString(CALLERS_PER_JVM))
                .redirectError(log.toFile()).start();
        BlockingQueue<String> lines = ProcessLines.follow(worker, "compute-worker-output");
        RedisComputeWorker.Outcomes outcomesHere = new RedisComputeWorker.Outcomes();
        try (RedisComputeCache here =
                RedisComputeCache.builder(redis.connectionFactory()).observer(outcomesHere).build()) {
            StringRedisTemplate redisHere = new StringRedisTemplate(redis.connectionFactory());
            awaitLine(lines, "READY", log);

            try (OutputStream go = worker.getOutputStream()) {
                go.write("GO\n".getBytes(StandardCharsets.UTF_8));
            }
            TreeSet<String> valuesHere = ComputeCacheCallers.fetchAtOnce(here, "quote", CALLERS_PER_JVM,
                    RedisComputeWorker.computation(redisHere, "test's"));

            String resultsThere = awaitLine(lines, "RESULTS ", log).substring("RESULTS ".length());
            assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(worker.exitValue()).isZero();
            assertThat(redisHere.opsForValue().get("computations")).as("computations, counted in Redis").isEqualTo("1");
            assertThat(valuesHere).hasSize(1);
            assertThat(List.of("computed by the test's JVM", "computed by the worker JVM"))
                    .contains(valuesHere.first());
            String outcomesThere = resultsThere.substring(resultsThere.indexOf("] ") + 2);
            assertThat(resultsThere).as("the worker JVM's callers got the same value").startsWith(valuesHere + " ");
            assertThat(outcomesHere.count(ComputeResult.HIT)).as("every call here was a miss").isZero();
            assertThat(outcomesThere).as("every call there was a miss").contains("hit=0");
            int computedHere = outcomesHere.count(ComputeResult.COMPUTED);
            assertThat(outcomesThere).as("one computer in both JVMs; the others waited (here: " + outcomesHere + ")")
                    .contains("computed=" + (1 - computedHere), "waited=" + (CALLERS_PER_JVM - 1 + computedHere));
        }
    }

    private String awaitLine(BlockingQueue<String> lines, String prefix, Path log) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !worker.isAlive() && lines.isEmpty()) {
                break;
            }
        }
        throw new AssertionError("worker printed no " + prefix + " line; its log: " + log + "\n"
                + Files.readString(log));
    }
}
