package dev.locks.benchmarks.report;

import java.util.Arrays;

/** Order statistics of a sample: what the tables report (medians and spreads, never a lone mean). */
public final class Stats {

    private final double[] sorted;

    private Stats(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        this.sorted = values.clone();
        Arrays.sort(sorted);
    }

    public static Stats of(double... values) {
        return new Stats(values);
    }

    public static Stats of(long... values) {
        return new Stats(Arrays.stream(values).asDoubleStream().toArray());
    }

    public double median() {
        return percentile(50);
    }

    /** The {@code p}-th percentile, interpolated between the closest ranks. */
    public double percentile(double p) {
        double rank = p / 100 * (sorted.length - 1);
        int low = (int) Math.floor(rank);
        int high = (int) Math.ceil(rank);
        return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
    }

    public double min() {
        return sorted[0];
    }

    public double max() {
        return sorted[sorted.length - 1];
    }

    public int count() {
        return sorted.length;
    }
}
