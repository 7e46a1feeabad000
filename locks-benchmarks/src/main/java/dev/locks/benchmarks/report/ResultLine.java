package dev.locks.benchmarks.report;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One measurement of a harness that is not JMH (hand-off, stampede, memory), printed as one tab-separated line
 * that {@link Comparison} reads back from the child JVM's output:
 * {@code RESULT group name unit median min max key=value;key=value}.
 *
 * @param group which comparison, e.g. {@code handoff}
 * @param name the implementation, e.g. {@code thisProject}
 * @param unit of median, min and max
 * @param median the median
 * @param min the low end of the spread
 * @param max the high end of the spread
 * @param extra other figures (counts, percentiles), in the order given
 */
public record ResultLine(String group, String name, String unit, double median, double min, double max,
        Map<String, String> extra) {

    static final String PREFIX = "RESULT\t";

    public static ResultLine of(String group, String name, String unit, Stats stats, Map<String, String> extra) {
        return new ResultLine(group, name, unit, stats.median(), stats.min(), stats.max(), extra);
    }

    /** Prints this line on standard output, for the parent {@link Comparison}. */
    public void print() {
        StringBuilder extras = new StringBuilder();
        extra.forEach((key, value) ->
                extras.append(extras.length() == 0 ? "" : ";").append(key).append('=').append(value));
        System.out.println(PREFIX + String.join("\t", group, name, unit, number(median), number(min), number(max),
                extras.length() == 0 ? "-" : extras.toString()));
        System.out.flush();
    }

    /** The line parsed, if it is one. */
    public static Optional<ResultLine> parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String[] f = line.substring(PREFIX.length()).split("\t");
        Map<String, String> extra = new LinkedHashMap<>();
        if (!f[6].equals("-")) {
            for (String pair : f[6].split(";")) {
                int eq = pair.indexOf('=');
                extra.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return Optional.of(new ResultLine(f[0], f[1], f[2], Double.parseDouble(f[3]), Double.parseDouble(f[4]),
                Double.parseDouble(f[5]), extra));
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }
}
