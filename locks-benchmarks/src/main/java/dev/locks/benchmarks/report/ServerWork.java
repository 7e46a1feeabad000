package dev.locks.benchmarks.report;

import dev.locks.benchmarks.redis.CommandStats;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Redis server work per operation: what {@code INFO commandstats} counted during a benchmark's measured
 * iterations (commands inside Lua scripts included), divided by the operations JMH counted in them. Unlike
 * throughput, it does not depend on how loaded the machine was.
 */
final class ServerWork {

    static final String PER_OP = "serverCommandsPerOp";
    /** The server's CPU time per operation, µs ({@link CommandStats#cpuMicros}). */
    static final String CPU_PER_OP = "serverCpuMicrosPerOp";
    private static final String PREFIX = PER_OP + ".";

    private ServerWork() {
    }

    /** The extra figures of a measurement: the total per operation and each command's. */
    static Map<String, String> perOperation(CommandStats stats, long ops) {
        Map<String, String> extra = new LinkedHashMap<>();
        if (ops <= 0) {
            return extra;
        }
        extra.put(PER_OP, format(stats.total() / (double) ops));
        if (stats.cpuMicros() > 0) {
            extra.put(CPU_PER_OP, format(stats.cpuMicros() / (double) ops));
        }
        stats.calls().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(entry -> extra.put(PREFIX + entry.getKey(), format(entry.getValue() / (double) ops)));
        extra.put("serverOps", Long.toString(ops));
        return extra;
    }

    /** Each command's calls per operation, most first, e.g. {@code set 5.00, evalsha 2.00}; null if not counted. */
    static String breakdown(Measurement measurement) {
        if (!measurement.extra().containsKey(PER_OP)) {
            return null;
        }
        return measurement.extra().entrySet().stream().filter(entry -> entry.getKey().startsWith(PREFIX))
                .sorted(Comparator.comparingDouble((Map.Entry<String, String> entry) ->
                        -Double.parseDouble(entry.getValue())).thenComparing(Map.Entry::getKey))
                .map(entry -> entry.getKey().substring(PREFIX.length()) + " " + entry.getValue())
                .collect(Collectors.joining(", "));
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
