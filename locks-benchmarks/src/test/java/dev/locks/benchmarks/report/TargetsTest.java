package dev.locks.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 15's targets the report judges beside the older ones, and how a verdict the spreads could turn reads. */
class TargetsTest {

    @Test
    void memoryShouldBeJudgedAgainstOneAndAHalfMapEntries() {
        List<Targets.Verdict> verdicts = Targets.judge(List.of(
                one("memory", "thisProject", 1, "B/lock", 98.5, 98.5, 98.5),
                one("memory", "floorConcurrentHashMap", 1, "B/lock", 42.6, 42.6, 42.6)));

        Targets.Verdict verdict = find(verdicts, "Memory per held lock ≤ 1.5× a `ConcurrentHashMap` entry");
        assertThat(verdict.measured()).startsWith("2.31× (98.5 vs 42.6 B/lock)");
        assertThat(verdict.status()).isEqualTo("**missed**");
    }

    @Test
    void monoShouldBeJudgedAgainstTheBlockingCall() {
        List<Targets.Verdict> verdicts = Targets.judge(List.of(
                one("SpringAnnotations", "locked", 1, "ns/op", 260, 250, 270),
                one("SpringAnnotations", "lockedMono", 1, "ns/op", 52000, 50000, 54000)));

        assertThat(find(verdicts, "`@Locked` on `Mono` (subscribed, blocked on) ≤ the blocking `@Locked` call, "
                + "1 thread(s)").status()).isEqualTo("**missed**");
    }

    @Test
    void clusterShouldBeJudgedAgainstRedisson() {
        List<Targets.Verdict> verdicts = Targets.judge(List.of(
                one("RedisClusterLocks:keyCount=5", "thisProject", 4, "ops/s", 1267, 946, 1491),
                one("RedisClusterLocks:keyCount=5", "redisson", 4, "ops/s", 358, 282, 382)));

        Targets.Verdict verdict = find(verdicts, "Redis Cluster cycle throughput ≥ each rival's (Redisson `RLock`, "
                + "`RedissonMultiLock`), 5 key(s), 4 thread(s)");
        assertThat(verdict.measured()).startsWith("3.54× the best rival (redisson");
        assertThat(verdict.status()).isEqualTo("met");
    }

    @Test
    void redisTailLatencyShouldBeJudgedAgainstTwiceTheFloors() {
        List<Targets.Verdict> verdicts = Targets.judge(List.of(
                one("RedisLocks:keyCount=1" + JmhSuite.P99, "thisProject", 4, "us/op", 900, 800, 1000),
                one("RedisLocks:keyCount=1" + JmhSuite.P99, "floorLettuce", 4, "us/op", 300, 290, 310)));

        Targets.Verdict verdict = find(verdicts, "Redis cycle p99 at 4 threads ≤ 2× the raw floor's, 1 key(s)");
        assertThat(verdict.measured()).startsWith("3.00×");
        assertThat(verdict.status()).isEqualTo("**missed**");
    }

    @Test
    void refreshAfterShouldBeJudgedAgainstTwiceAHitsP99AndOnReadsThatWaited() {
        List<Targets.Verdict> quiet = Targets.judge(List.of(
                fresh("hitOnly", 0.004, Map.of("p99Us", "1.0", "waitedReads", "0", "reads", "1000")),
                fresh("thisProjectRefreshAfter", 0.0015, Map.of("p99Us", "0.9", "waitedReads", "0", "reads", "900"))));
        List<Targets.Verdict> waiting = Targets.judge(List.of(
                fresh("hitOnly", 0.004, Map.of("p99Us", "1.0", "waitedReads", "0", "reads", "1000")),
                fresh("thisProjectRefreshAfter", 52, Map.of("p99Us", "0.9", "waitedReads", "3", "reads", "900"))));

        String longest = "Fresh values, in memory: with `refreshAfter` the longest read ≤ 2× a hit's p99";
        String noWait = "Fresh values, in memory: with `refreshAfter` no read waits for a computation (none ≥ 25 ms)";
        assertThat(find(quiet, longest).measured()).endsWith(": 1.5×");
        assertThat(find(quiet, longest).status()).startsWith("met");
        assertThat(find(quiet, noWait).status()).isEqualTo("met");
        assertThat(find(waiting, longest).status()).isEqualTo("**missed**");
        assertThat(find(waiting, noWait).measured()).isEqualTo("3 of 900 reads took ≥ 25 ms");
        assertThat(find(waiting, noWait).status()).isEqualTo("**missed**");
        assertThat(find(waiting, "Fresh values, Redis: with `refreshAfter` the longest read ≤ 2× a hit's p99")
                .status()).isEqualTo(Targets.NOT_MEASURED);
    }

    @Test
    void aVerdictTheSpreadsCouldTurnShouldSaySo() {
        List<Targets.Verdict> settled = Targets.judge(List.of(
                one("LocalSingleKey", "thisProject", 1, "ns/op", 50, 49, 51),
                one("LocalSingleKey", "floorConcurrentHashMap", 1, "ns/op", 41, 40, 42)));
        List<Targets.Verdict> unsettled = Targets.judge(List.of(
                one("LocalSingleKey", "thisProject", 1, "ns/op", 50, 40, 70),
                one("LocalSingleKey", "floorConcurrentHashMap", 1, "ns/op", 41, 40, 42)));

        String target = "Local single-key cycle ≤ 1.5× the `ConcurrentHashMap` floor, 1 thread(s)";
        assertThat(find(settled, target).status()).isEqualTo("met");
        assertThat(find(unsettled, target).status()).isEqualTo("met; unsettled: the spreads straddle the bound");
    }

    private static Measurement one(String group, String name, int threads, String unit, double median, double min,
            double max) {
        return new Measurement(group, name, threads, unit, median, min, max, Map.of());
    }

    private static Measurement fresh(String name, double longestMillis, Map<String, String> extra) {
        return new Measurement("freshValues", name, 8, "ms", longestMillis, longestMillis, longestMillis, extra);
    }

    private static Targets.Verdict find(List<Targets.Verdict> verdicts, String target) {
        return verdicts.stream().filter(v -> v.target().equals(target)).findFirst().orElseThrow();
    }
}
