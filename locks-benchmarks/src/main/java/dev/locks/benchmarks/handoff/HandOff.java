package dev.locks.benchmarks.handoff;

import dev.locks.benchmarks.report.ResultLine;
import dev.locks.benchmarks.report.Stats;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Contended hand-off: two threads alternating on one key, each pass timed from the holder's release to the
 * waiter's acquire (see {@link Duel}). This project against {@code ReentrantLock} (the JDK's queue and unpark)
 * and the seed's design (a waiter polls every 10 ms plus jitter). A plain harness rather than JMH: the time that
 * matters is between two threads, not the time of one call. Prints {@link ResultLine}s in µs.
 *
 * <p>Arguments: {@code [trials] [passes per trial] [seed passes per trial]}, default 5, 2000, 40.
 */
public final class HandOff {

    private static final String GROUP = "handoff";

    private HandOff() {
    }

    public static void main(String[] args) throws Exception {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int passes = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int seedPasses = args.length > 2 ? Integer.parseInt(args[2]) : 40;
        measure(GROUP, "thisProject", Contender::thisProject, trials, passes, 0);
        measure(GROUP, "reentrantLock", Contender::reentrantLock, trials, passes, 0);
        // released at a random moment of the seed's 11..20 ms sleep: what a real holder's release would meet
        measure(GROUP, "seedDesign", Contender::seedDesign, trials, seedPasses, TimeUnit.MILLISECONDS.toNanos(20));
    }

    /**
     * Plays {@code trials} duels of {@code passes} hand-offs on a new contender (after one of warm-up) and prints
     * their {@link ResultLine} in {@code group}; a polling waiter is released at a random moment of
     * {@code releasePhaseNanos} (0: at once).
     */
    static void measure(String group, String name, Supplier<Contender> contenders, int trials, int passes,
            long releasePhaseNanos) throws InterruptedException {
        try (Contender lock = contenders.get()) {
            Duel.play(lock, Math.max(passes, 100), releasePhaseNanos); // warm-up, not counted
            long[] all = new long[0];
            double[] trialMedians = new double[trials];
            for (int trial = 0; trial < trials; trial++) {
                long[] latencies = Duel.play(lock, passes, releasePhaseNanos);
                trialMedians[trial] = Stats.of(latencies).median() / 1000.0;
                all = concat(all, latencies);
            }
            Stats pooled = Stats.of(Arrays.stream(all).mapToDouble(nanos -> nanos / 1000.0).toArray());
            Stats medians = Stats.of(trialMedians);
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put("p90", format(pooled.percentile(90)));
            extra.put("p99", format(pooled.percentile(99)));
            extra.put("passes", Integer.toString(pooled.count()));
            extra.put("trials", Integer.toString(trials));
            new ResultLine(group, name, "µs", pooled.median(), medians.min(), medians.max(), extra).print();
        }
    }

    private static long[] concat(long[] a, long[] b) {
        long[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
