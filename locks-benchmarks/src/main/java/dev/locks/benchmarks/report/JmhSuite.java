package dev.locks.benchmarks.report;

import dev.locks.benchmarks.redis.CommandStats;
import dev.locks.benchmarks.redis.RedisClients;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * One JMH benchmark class, run at each of its thread counts. Warm-up, measurement and forks come from the
 * class's annotations, except in a quick run, which only checks that everything runs.
 *
 * @param benchmarkClass the simple name of the class
 * @param threads the thread counts to run it with; empty for the class's own {@code @Threads}
 * @param needsRedis whether it needs {@code redis-server}
 */
record JmhSuite(String benchmarkClass, List<Integer> threads, boolean needsRedis) {

    /** Every fork gets the same fixed heap, so that heap sizing is not one more difference between runs. */
    static final String[] FORK_JVM_ARGS = {"-Xms2g", "-Xmx2g"};

    static final List<JmhSuite> ALL = List.of(
            new JmhSuite("LocalSingleKey", List.of(1, 2), false),
            new JmhSuite("LocalMultiKey", List.of(1, 2), false),
            new JmhSuite("LocalSpreadKeys", List.of(), false),
            new JmhSuite("LocalComputeHit", List.of(1, 2), false),
            new JmhSuite("SpringAnnotations", List.of(1, 2), false),
            new JmhSuite("RedisLocks", List.of(1, 4), true),
            new JmhSuite("RedisComputeHit", List.of(1, 4), true),
            new JmhSuite("RedisClusterLocks", List.of(1, 4), true),
            new JmhSuite("JdbcLocks", List.of(1, 4), false));

    List<Measurement> run(boolean quick, Path out) throws RunnerException {
        List<Measurement> measured = new ArrayList<>();
        for (Integer count : threads.isEmpty() ? List.<Integer>of(0) : threads) {
            ChainedOptionsBuilder options = new OptionsBuilder()
                    .include("\\." + benchmarkClass + "\\.")
                    .jvmArgs(FORK_JVM_ARGS)
                    .shouldFailOnError(true)
                    .resultFormat(ResultFormatType.JSON)
                    .result(out.resolve("jmh-" + benchmarkClass + (count == 0 ? "" : "-t" + count) + ".json")
                            .toString());
            if (count > 0) {
                options.threads(count);
            }
            Path commandStats = out.resolve("commandstats").toAbsolutePath();
            if (needsRedis) {
                options.jvmArgsAppend("-D" + RedisClients.COMMAND_STATS_DIR + "=" + commandStats);
            }
            if (quick) {
                options.warmupIterations(1).warmupTime(TimeValue.milliseconds(200))
                        .measurementIterations(2).measurementTime(TimeValue.milliseconds(200));
            }
            for (RunResult result : new Runner(options.build()).run()) {
                Measurement measurement = measurement(result);
                measured.add(needsRedis ? withServerWork(measurement, result, commandStats) : measurement);
            }
        }
        return measured;
    }

    /**
     * {@code measurement} with what its Redis server ran per operation, from the counts its fork wrote
     * ({@link RedisClients.WithServer}) and the operations JMH counted in the same iterations: {@code
     * serverCommandsPerOp} and, per command, {@code serverCommandsPerOp.<name>}.
     */
    private static Measurement withServerWork(Measurement measurement, RunResult result, Path dir) {
        BenchmarkParams params = result.getParams();
        Map<String, String> values = new TreeMap<>();
        for (String key : params.getParamsKeys()) {
            values.put(key, params.getParam(key));
        }
        Path file = CommandStats.file(dir, params.getBenchmark(), values, params.getThreads());
        if (!Files.exists(file)) {
            return measurement;
        }
        long ops = 0;
        for (BenchmarkResult fork : result.getBenchmarkResults()) {
            for (IterationResult iteration : fork.getIterationResults()) {
                ops += iteration.getMetadata().getAllOps();
            }
        }
        return measurement.withExtra(ServerWork.perOperation(CommandStats.read(file), ops));
    }

    private static Measurement measurement(RunResult result) {
        BenchmarkParams params = result.getParams();
        String benchmark = params.getBenchmark();
        String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        String type = benchmark.substring(0, benchmark.lastIndexOf('.'));
        StringBuilder group = new StringBuilder(type.substring(type.lastIndexOf('.') + 1));
        for (String key : params.getParamsKeys()) {
            group.append(':').append(key).append('=').append(params.getParam(key));
        }
        List<Double> scores = new ArrayList<>();
        for (BenchmarkResult fork : result.getBenchmarkResults()) {
            Collection<IterationResult> iterations = fork.getIterationResults();
            for (IterationResult iteration : iterations) {
                scores.add(iteration.getPrimaryResult().getScore());
            }
        }
        Stats stats = Stats.of(scores.stream().mapToDouble(Double::doubleValue).toArray());
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("iterations", Integer.toString(stats.count()));
        return new Measurement(group.toString(), method, params.getThreads(), result.getPrimaryResult().getScoreUnit(),
                stats.median(), stats.min(), stats.max(), extra);
    }
}
