package dev.locks.benchmarks.report;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One implementation measured in one setting: the median and the spread of its samples (JMH iterations, or a
 * harness's trials), in {@code unit}.
 *
 * @param group what was compared, e.g. {@code LocalMultiKey:keyCount=2} or {@code handoff}
 * @param name the implementation, e.g. {@code thisProject}
 * @param threads how many threads ran it
 * @param unit e.g. {@code ns/op}
 * @param median the median sample
 * @param min the lowest sample
 * @param max the highest sample
 * @param extra other figures the harness reported
 */
public record Measurement(String group, String name, int threads, String unit, double median, double min, double max,
        Map<String, String> extra) {

    /** A harness's line, which names its own group and setting. */
    static Measurement of(ResultLine line, int threads) {
        return new Measurement(line.group(), line.name(), threads, line.unit(), line.median(), line.min(), line.max(),
                line.extra());
    }

    /** This measurement with {@code more} extra figures. */
    Measurement withExtra(Map<String, String> more) {
        Map<String, String> all = new LinkedHashMap<>(extra);
        all.putAll(more);
        return new Measurement(group, name, threads, unit, median, min, max, all);
    }

    /** An extra figure as a number, or NaN when absent. */
    double extra(String key) {
        String value = extra.get(key);
        return value == null ? Double.NaN : Double.parseDouble(value);
    }
}
