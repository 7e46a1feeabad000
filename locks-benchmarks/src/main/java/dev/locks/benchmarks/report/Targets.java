package dev.locks.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** The targets, judged on the medians of one run. */
final class Targets {

    /** How a target fared. */
    record Verdict(String target, String measured, String status) {
    }

    /** The status of a target this run did not measure. */
    static final String NOT_MEASURED = "—";

    /** Ratios this close to their bound are called out: on a busy machine noise can flip them. */
    private static final double NEAR = 0.10;

    /** What the stampede is judged against, each measured in the same run. */
    private static final Map<String, String> STAMPEDE_REFERENCES = Map.of(
            "floorFutureInMap", "the `CompletableFuture`-in-a-map floor",
            "floorComputeIfAbsent", "the `computeIfAbsent` floor",
            "caffeineGet", "Caffeine `get(key, fn)`");

    /** The readers of the fresh-values harness. */
    private static final int FRESH_THREADS = 8;

    private final List<Measurement> measurements;
    private final List<Verdict> verdicts = new ArrayList<>();

    private Targets(List<Measurement> measurements) {
        this.measurements = measurements;
    }

    static List<Verdict> judge(List<Measurement> measurements) {
        Targets targets = new Targets(measurements);
        targets.local();
        targets.memory();
        targets.handOff();
        targets.annotations();
        targets.redisAnnotations();
        targets.stampede();
        targets.freshValues();
        targets.redis();
        targets.jdbc();
        return targets.verdicts;
    }

    private void local() {
        for (int threads : List.of(1, 2)) {
            atMost("Local single-key cycle ≤ 1.5× the `ConcurrentHashMap` floor, " + threads + " thread(s)",
                    "LocalSingleKey", "thisProject", "floorConcurrentHashMap", threads, 1.5);
            for (String rival : List.of("lock4jLocal", "mapOfReentrantLocks")) {
                atMost("Local single-key cycle ≥ 1.5× faster than per-key rival `" + rival + "`, " + threads
                        + " thread(s)", "LocalSingleKey", "thisProject", rival, threads, 1 / 1.5);
            }
        }
        for (int keys : List.of(2, 8)) {
            for (int threads : List.of(1, 2)) {
                atMost(keys + "-key cycle ≤ 1.5× its floor (sorted `putIfAbsent` + roll-back), " + threads
                        + " thread(s)",
                        "LocalMultiKey:keyCount=" + keys, "thisProject", "floorConcurrentHashMap", threads, 1.5);
            }
        }
    }

    /** Issue 15: a held lock within 1.5× the bytes of a {@code ConcurrentHashMap} entry. */
    private void memory() {
        atMost("Memory per held lock ≤ 1.5× a `ConcurrentHashMap` entry", "memory", "thisProject",
                "floorConcurrentHashMap", 1, 1.5);
    }

    private void handOff() {
        atMost("Hand-off ≤ 2× `ReentrantLock`", "handoff", "thisProject", "reentrantLock", 2, 2.0);
        Optional<Measurement> ours = find("handoff", "thisProject", 2);
        Optional<Measurement> seed = find("handoff", "seedDesign", 2);
        if (ours.isPresent() && seed.isPresent()) {
            double times = seed.get().median() / ours.get().median();
            add("Hand-off ≥ 100× faster than the seed's sleep design (10 ms interval)",
                    String.format(Locale.ROOT, "%s µs vs %s µs: %,.0f× faster", Report.number(ours.get().median()),
                            Report.number(seed.get().median()), times), status(times >= 100, times / 100));
        } else {
            missing("Hand-off ≥ 100× faster than the seed's sleep design");
        }
    }

    private void annotations() {
        for (int threads : List.of(1, 2)) {
            Optional<Measurement> bare = find("SpringAnnotations", "bareMethod", threads);
            Optional<Measurement> locked = find("SpringAnnotations", "locked", threads);
            Optional<Measurement> cacheable = find("SpringAnnotations", "cacheableSyncHit", threads);
            String target = "`@Locked` overhead ≤ `@Cacheable(sync = true)`'s, same SpEL key, " + threads
                    + " thread(s)";
            if (bare.isPresent() && locked.isPresent() && cacheable.isPresent()) {
                double ours = locked.get().median() - bare.get().median();
                double theirs = cacheable.get().median() - bare.get().median();
                add(target, String.format(Locale.ROOT, "%s ns vs %s ns: %.2f×", Report.number(ours),
                        Report.number(theirs), ours / theirs), status(ours <= theirs, theirs / ours));
            } else {
                missing(target);
            }
            atMost("`@Locked` on `Mono` (subscribed, blocked on) ≤ the blocking `@Locked` call, " + threads
                    + " thread(s)", "SpringAnnotations", "lockedMono", "locked", threads, 1.0);
            atMost("`fetchOrCompute` hit ≤ 2× Caffeine `getIfPresent` (size bound + expiry), " + threads + " thread(s)",
                    "LocalComputeHit", "thisProject", "caffeineGetIfPresent", threads, 2.0);
            atMost("`fetchOrCompute` hit ≤ 2× Caffeine `get(key, fn)`, " + threads + " thread(s)",
                    "LocalComputeHit", "thisProject", "caffeineGet", threads, 2.0);
            atMost("`@FetchOrCompute` hit ≤ `@Cacheable(sync = true)` hit on Caffeine, " + threads + " thread(s)",
                    "SpringAnnotations", "fetchOrComputeHit", "cacheableSyncHit", threads, 1.0);
        }
    }

    /** Issue 24: the reactive call on Redis within 1.5× of the blocking one, at the suite's thread counts. */
    private void redisAnnotations() {
        for (int threads : List.of(1, 4)) {
            atMost("Redis: `@Locked` on `Mono` (subscribed, blocked on) ≤ 1.5× the blocking `@Locked` call, "
                    + threads + " thread(s)", "RedisAnnotations", "lockedMono", "locked", threads, 1.5);
        }
    }

    private void stampede() {
        for (String name : List.of("thisProject", "thisProjectAnnotation")) {
            Optional<Measurement> ours = find("stampede", name, 1000);
            String form = name.equals("thisProject") ? "`fetchOrCompute`" : "`@FetchOrCompute`";
            if (ours.isEmpty()) {
                missing("Stampede, " + form + ": exactly one computation");
                continue;
            }
            Measurement m = ours.get();
            boolean one = m.extra("computationsPerTrialMin") == 1 && m.extra("computationsPerTrialMax") == 1;
            add("Stampede, " + form + ": exactly one computation per 1,000-thread miss",
                    String.format(Locale.ROOT, "%s to %s in each of %s trials",
                            m.extra().get("computationsPerTrialMin"), m.extra().get("computationsPerTrialMax"),
                            m.extra().get("trials")), one ? "met" : "**missed**");
            double bound = 1.2 * m.extra("computeMillis");
            double worstWait = m.extra("worstWaitMs");
            add("Stampede, " + form + ": every caller served within 1.2× the computation ("
                    + Report.number(bound) + " ms), from its own call",
                    String.format(Locale.ROOT, "worst caller waited %s ms (median of trials; slowest trial %s ms)",
                            Report.number(worstWait), m.extra().get("worstWaitMaxMs")),
                    status(worstWait <= bound, bound / worstWait));
            add("Stampede, " + form + ": all 1,000 served within 1.2× the computation (" + Report.number(bound)
                    + " ms), from the start gate",
                    String.format(Locale.ROOT, "all served after %s ms (median; trials %s–%s ms)",
                            Report.number(m.median()), Report.number(m.min()), Report.number(m.max())),
                    status(m.median() <= bound, bound / m.median()));
            for (String floor : List.of("floorFutureInMap", "floorComputeIfAbsent", "caffeineGet")) {
                atMost("Stampede, " + form + ": all 1,000 served within 1.1× " + STAMPEDE_REFERENCES.get(floor)
                        + ", same run", "stampede", name, floor, 1000, 1.1);
            }
        }
    }

    /**
     * Issue 22: with {@code refreshAfter} no read of a hot key waits for its computation: the longest read within
     * 2× a hit's p99 (the hit-only baseline's on the same backend, same run), and no read as long as half a computation.
     */
    private void freshValues() {
        for (String name : List.of("thisProjectRefreshAfter", "redisRefreshAfter")) {
            boolean redis = name.startsWith("redis");
            String where = redis ? "Redis" : "in memory";
            String target = "Fresh values, " + where + ": with `refreshAfter` the longest read ≤ 2× a hit's p99";
            Optional<Measurement> ours = find("freshValues", name, FRESH_THREADS);
            Optional<Measurement> hit = find("freshValues", redis ? "redisHitOnly" : "hitOnly", FRESH_THREADS);
            if (ours.isEmpty() || hit.isEmpty()) {
                missing(target);
            } else {
                double longestUs = ours.get().max() * 1000;
                double bound = 2 * hit.get().extra("p99Us");
                add(target, String.format(Locale.ROOT, "longest read %s µs (slowest trial), hit p99 %s µs: %.1f×",
                        Report.number(longestUs), Report.number(hit.get().extra("p99Us")), longestUs / bound * 2),
                        status(longestUs <= bound, bound / longestUs));
            }
            String noWait = "Fresh values, " + where + ": with `refreshAfter` no read waits for a computation "
                    + "(none ≥ 25 ms)";
            if (ours.isEmpty()) {
                missing(noWait);
            } else {
                double waited = ours.get().extra("waitedReads");
                add(noWait, String.format(Locale.ROOT, "%s of %s reads took ≥ 25 ms",
                        ours.get().extra().get("waitedReads"), ours.get().extra().get("reads")),
                        waited == 0 ? "met" : "**missed**");
            }
        }
    }

    private void redis() {
        for (int keys : List.of(1, 5)) {
            for (int threads : List.of(1, 4)) {
                String group = "RedisLocks:keyCount=" + keys;
                Optional<Measurement> ours = find(group, "thisProject", threads);
                Optional<Measurement> floor = find(group, "floorLettuce", threads);
                String where = keys + " key(s), " + threads + " thread(s)";
                if (ours.isPresent() && floor.isPresent()) {
                    double ratio = ours.get().median() / floor.get().median();
                    add("Redis cycle throughput ≥ 0.8× the raw floor, " + where,
                            String.format(Locale.ROOT, "%.2f× (%s vs %s /s)", ratio, Report.number(ours.get().median()),
                                    Report.number(floor.get().median())),
                            status(ratio >= 0.8, ratio / 0.8, ours.get(), floor.get(), 0.8));
                } else {
                    missing("Redis cycle throughput ≥ 0.8× the raw floor, " + where);
                }
                atLeastEveryRival("Redis cycle throughput ≥ each rival's, " + where, group, threads);
            }
        }
        for (int keys : List.of(1, 5)) {
            atMost("Redis cycle p99 at 4 threads ≤ 2× the raw floor's, " + keys + " key(s)",
                    "RedisLocks:keyCount=" + keys + JmhSuite.P99, "thisProject", "floorLettuce", 4, 2.0);
        }
        for (int keys : List.of(1, 5)) {
            for (int threads : List.of(1, 4)) {
                atLeastEveryRival("Redis Cluster cycle throughput ≥ each rival's (Redisson `RLock`, "
                        + "`RedissonMultiLock`), " + keys + " key(s), " + threads + " thread(s)",
                        "RedisClusterLocks:keyCount=" + keys, threads);
            }
        }
        for (int threads : List.of(1, 4)) {
            String target = "Redis cache hit throughput ≥ Spring `RedisCache`'s, " + threads + " thread(s)";
            Optional<Measurement> ours = find("RedisComputeHit", "thisProject", threads);
            Optional<Measurement> spring = find("RedisComputeHit", "springRedisCache", threads);
            if (ours.isPresent() && spring.isPresent()) {
                double ratio = ours.get().median() / spring.get().median();
                add(target, String.format(Locale.ROOT, "%.2f× (%s vs %s /s)", ratio, Report.number(ours.get().median()),
                        Report.number(spring.get().median())),
                        status(ratio >= 1, ratio, ours.get(), spring.get(), 1));
            } else {
                missing(target);
            }
        }
        for (int threads : List.of(1, 4)) {
            Optional<Measurement> one = find("RedisLocks:keyCount=1", "thisProject", threads);
            Optional<Measurement> five = find("RedisLocks:keyCount=5", "thisProject", threads);
            if (one.isPresent() && five.isPresent()) {
                double ratio = five.get().median() / one.get().median();
                add("Redis: a 5-key cycle as fast as a 1-key one (one round trip each way), " + threads + " thread(s)",
                        String.format(Locale.ROOT, "5 keys at %.2f× the 1-key throughput", ratio),
                        status(ratio >= 0.9, ratio / 0.9, five.get(), one.get(), 0.9));
            }
        }
    }

    /** Issue 15: the JDBC lock at least as fast as the best rival on the same PostgreSQL. */
    private void jdbc() {
        for (int keys : List.of(1, 5)) {
            for (int threads : List.of(1, 4)) {
                atLeastEveryRival("PostgreSQL cycle throughput ≥ each rival's, " + keys + " key(s), " + threads
                        + " thread(s)", "JdbcLocks:db=postgresql:keyCount=" + keys, threads);
            }
        }
        String target = "PostgreSQL hand-off (`NOTIFY`) faster than each rival's polling";
        Optional<Measurement> ours = find("JdbcHandOff", "thisProject", 2);
        Optional<Measurement> best = rivals("JdbcHandOff", 2).min((a, b) -> Double.compare(a.median(), b.median()));
        if (ours.isPresent() && best.isPresent()) {
            double times = best.get().median() / ours.get().median();
            add(target, String.format(Locale.ROOT, "%s µs vs %s µs (%s): %,.1f× faster",
                    Report.number(ours.get().median()), Report.number(best.get().median()), best.get().name(), times),
                    status(times >= 1, times));
        } else {
            missing(target);
        }
    }

    /** This project's throughput in {@code group} at least the best rival's. */
    private void atLeastEveryRival(String target, String group, int threads) {
        Optional<Measurement> ours = find(group, "thisProject", threads);
        Optional<Measurement> best = rivals(group, threads).max((a, b) -> Double.compare(a.median(), b.median()));
        if (ours.isEmpty() || best.isEmpty()) {
            missing(target);
            return;
        }
        double vsBest = ours.get().median() / best.get().median();
        add(target, String.format(Locale.ROOT, "%.2f× the best rival (%s: %s vs %s /s)", vsBest, best.get().name(),
                Report.number(ours.get().median()), Report.number(best.get().median())),
                status(vsBest >= 1, vsBest, ours.get(), best.get(), 1));
    }

    /** The rivals' measurements in {@code group}: neither this project's own variants nor a floor. */
    private Stream<Measurement> rivals(String group, int threads) {
        return measurements.stream()
                .filter(m -> m.group().equals(group) && m.threads() == threads)
                .filter(m -> !m.name().startsWith("thisProject") && !m.name().startsWith("floor"));
    }

    /** {@code ours / theirs <= bound}, both lower-is-better medians. */
    private void atMost(String target, String group, String ours, String theirs, int threads, double bound) {
        Optional<Measurement> a = find(group, ours, threads);
        Optional<Measurement> b = find(group, theirs, threads);
        if (a.isEmpty() || b.isEmpty()) {
            missing(target);
            return;
        }
        double ratio = a.get().median() / b.get().median();
        add(target, String.format(Locale.ROOT, "%.2f× (%s vs %s %s)", ratio, Report.number(a.get().median()),
                Report.number(b.get().median()), a.get().unit()),
                status(ratio <= bound, bound / ratio, a.get(), b.get(), bound));
    }

    /** {@code margin} is how far past the bound the result is, as a factor (1 = on the bound). */
    private static String status(boolean met, double margin) {
        String base = met ? "met" : "**missed**";
        return Math.abs(margin - 1) < NEAR ? base + " (within 10% of the bound)" : base;
    }

    /**
     * As {@link #status(boolean, double)}, and said to be unsettled when the ratio {@code a / b} falls on both
     * sides of {@code bound} within the two measurements' spreads (lowest to highest iteration): a verdict that
     * one more run on a host whose speed wanders (other machines' load on shared cores, which the load average
     * inside this one does not see) could turn.
     */
    private static String status(boolean met, double margin, Measurement a, Measurement b, double bound) {
        String base = status(met, margin);
        double low = a.min() / b.max();
        double high = a.max() / b.min();
        return low < bound && bound < high ? base + "; unsettled: the spreads straddle the bound" : base;
    }

    private Optional<Measurement> find(String group, String name, int threads) {
        return measurements.stream()
                .filter(m -> m.group().equals(group) && m.name().equals(name) && m.threads() == threads)
                .findFirst();
    }

    private void add(String target, String measured, String status) {
        verdicts.add(new Verdict(target, measured, status));
    }

    private void missing(String target) {
        verdicts.add(new Verdict(target, "not measured in this run", NOT_MEASURED));
    }
}
