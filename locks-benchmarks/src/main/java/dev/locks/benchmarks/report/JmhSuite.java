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
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.util.Statistics;
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
 * @param latencyMethods {@code null} for the class's own mode; else a regex of the methods to run in JMH's
 *        sample mode instead, for their latency percentiles: each becomes a measurement of group
 *        {@code <class>:<params>:p99} (median: the 99th percentile of every sampled call; spread: the lowest to
 *        highest iteration's 99th percentile; extra: {@code p50}, {@code p999})
 */
record JmhSuite(String benchmarkClass, List<Integer> threads, boolean needsRedis, String latencyMethods) {

    JmhSuite(String benchmarkClass, List<Integer> threads, boolean needsRedis) {
        this(benchmarkClass, threads, needsRedis, null);
    }

    /** The group suffix of a latency suite's measurements. */
    static final String P99 = ":p99";

    /**
     * Every fork gets the same fixed heap, so that heap sizing is not one more difference between runs, touched
     * whole before the first iteration: on this kind of virtual machine the first write to each page of memory
     * costs a trip to the host, and without pre-touching an allocating benchmark paid it through its first
     * seconds (a {@code ConcurrentHashMap} cycle measured 170 ns/op for three iterations, then 41; pre-touched,
     * 40 to 41 from the first).
     */
    static final String[] FORK_JVM_ARGS = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"};

    static final List<JmhSuite> ALL = List.of(
            new JmhSuite("LocalSingleKey", List.of(1, 2), false),
            new JmhSuite("LocalMultiKey", List.of(1, 2), false),
            new JmhSuite("LocalSpreadKeys", List.of(), false),
            new JmhSuite("LocalComputeHit", List.of(1, 2), false),
            new JmhSuite("SpringAnnotations", List.of(1, 2), false),
            new JmhSuite("RedisLocks", List.of(1, 4), true),
            new JmhSuite("RedisLocks", List.of(4), true, "thisProject|floorLettuce|shedLock"),
            new JmhSuite("RedisComputeHit", List.of(1, 4), true),
            new JmhSuite("RedisAnnotations", List.of(1, 4), true),
            new JmhSuite("RedisClusterLocks", List.of(1, 4), true),
            new JmhSuite("JdbcLocks", List.of(1, 4), false));

    List<Measurement> run(boolean quick, Path out) throws RunnerException {
        List<Measurement> measured = new ArrayList<>();
        for (Integer count : threads.isEmpty() ? List.<Integer>of(0) : threads) {
            boolean latency = latencyMethods != null;
            ChainedOptionsBuilder options = new OptionsBuilder()
                    .include("\\." + benchmarkClass + "\\." + (latency ? "(" + latencyMethods + ")$" : ""))
                    .jvmArgs(FORK_JVM_ARGS)
                    .shouldFailOnError(true)
                    .resultFormat(ResultFormatType.JSON)
                    .result(out.resolve("jmh-" + benchmarkClass + (count == 0 ? "" : "-t" + count)
                            + (latency ? "-latency" : "") + ".json").toString());
            if (latency) {
                options.mode(Mode.SampleTime).timeUnit(TimeUnit.MICROSECONDS);
            }
            if (count > 0) {
                options.threads(count);
            }
            Path commandStats = out.resolve("commandstats").toAbsolutePath();
            if (needsRedis && !latency) {
                options.jvmArgsAppend("-D" + RedisClients.COMMAND_STATS_DIR + "=" + commandStats);
            }
            if (quick) {
                options.warmupIterations(1).warmupTime(TimeValue.milliseconds(200))
                        .measurementIterations(2).measurementTime(TimeValue.milliseconds(200));
            }
            for (RunResult result : new Runner(options.build()).run()) {
                if (latency) {
                    measured.add(latency(result));
                    continue;
                }
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

    /** A sample-mode result as its 99th percentile ({@link #P99}). */
    private static Measurement latency(RunResult result) {
        BenchmarkParams params = result.getParams();
        List<Double> perIteration = new ArrayList<>();
        for (BenchmarkResult fork : result.getBenchmarkResults()) {
            for (IterationResult iteration : fork.getIterationResults()) {
                perIteration.add(iteration.getPrimaryResult().getStatistics().getPercentile(99));
            }
        }
        Statistics all = result.getPrimaryResult().getStatistics();
        Stats spread = Stats.of(perIteration.stream().mapToDouble(Double::doubleValue).toArray());
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("iterations", Integer.toString(spread.count()));
        extra.put("samples", Long.toString(all.getN()));
        extra.put("p50", Report.number(all.getPercentile(50)));
        extra.put("p999", Report.number(all.getPercentile(99.9)));
        return new Measurement(group(params) + P99, method(params), params.getThreads(),
                result.getPrimaryResult().getScoreUnit(), all.getPercentile(99), spread.min(), spread.max(), extra);
    }

    private static String method(BenchmarkParams params) {
        String benchmark = params.getBenchmark();
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }

    /** The benchmark's class and its parameters: {@code RedisLocks:keyCount=5}. */
    private static String group(BenchmarkParams params) {
        String benchmark = params.getBenchmark();
        String type = benchmark.substring(0, benchmark.lastIndexOf('.'));
        StringBuilder group = new StringBuilder(type.substring(type.lastIndexOf('.') + 1));
        for (String key : params.getParamsKeys()) {
            group.append(':').append(key).append('=').append(params.getParam(key));
        }
        return group.toString();
    }

    private static Measurement measurement(RunResult result) {
        BenchmarkParams params = result.getParams();
        String method = method(params);
        String group = group(params);
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
        return new Measurement(group, method, params.getThreads(), result.getPrimaryResult().getScoreUnit(),
                stats.median(), stats.min(), stats.max(), extra);
    }
}
