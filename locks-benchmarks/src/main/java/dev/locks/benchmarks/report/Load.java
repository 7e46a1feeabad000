package dev.locks.benchmarks.report;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * How busy the machine was around one comparison, and whether that leaves its verdicts meaningful. A run whose
 * machine was busy with other work measures the other work as much as the code: its figures are still written,
 * but marked "loaded, no verdict" instead of met or missed.
 *
 * <p>Two figures decide, since the 1-minute load average while the run goes counts the benchmark's own threads
 * (a 4-thread benchmark on 2 cores alone shows a load of 4):
 * <ul>
 *   <li>the load average just before the first benchmark, above {@value #MAX_LOAD_PER_CORE} × cores;</li>
 *   <li>the CPU that processes other than the comparison and its forks used during the run (from
 *       {@code /proc/stat} less the comparison's own and its reaped children's times, {@code /proc/self/stat}),
 *       above {@value #MAX_OTHER_CPU_SHARE} of the machine.</li>
 * </ul>
 * Either one unknown (not Linux) is no verdict either.
 *
 * @param cores the machine's cores
 * @param before the 1-minute load average before the first benchmark, NaN if unknown
 * @param during the 1-minute load averages sampled while the run went (informative only)
 * @param after the 1-minute load average after the last benchmark, NaN if unknown
 * @param otherCpuShare the share (0 to 1) of the machine's CPU time that other processes used during the run,
 *     NaN if unknown
 */
record Load(int cores, double before, List<Double> during, double after, double otherCpuShare) {

    /** The load average before the run above which it is loaded, per core. */
    static final double MAX_LOAD_PER_CORE = 0.5;
    /** The share of the machine's CPU that other work may take during the run. */
    static final double MAX_OTHER_CPU_SHARE = 0.25;

    Load {
        during = List.copyOf(during);
    }

    /** Whether met/missed verdicts may be written from this run. */
    boolean allowsVerdict() {
        return !Double.isNaN(before) && before <= MAX_LOAD_PER_CORE * cores
                && !Double.isNaN(otherCpuShare) && otherCpuShare <= MAX_OTHER_CPU_SHARE;
    }

    /** Why no verdict is written, or empty when one is. */
    String whyNoVerdict() {
        if (Double.isNaN(before) || Double.isNaN(otherCpuShare)) {
            return "the load is unknown (no /proc)";
        }
        StringBuilder why = new StringBuilder();
        if (before > MAX_LOAD_PER_CORE * cores) {
            why.append(String.format(Locale.ROOT, "the load average before the run was %.2f, above %.2f (%.1f × %d "
                    + "cores)", before, MAX_LOAD_PER_CORE * cores, MAX_LOAD_PER_CORE, cores));
        }
        if (otherCpuShare > MAX_OTHER_CPU_SHARE) {
            why.append(why.length() == 0 ? "" : "; ").append(String.format(Locale.ROOT,
                    "other processes used %.0f%% of the machine's CPU during the run, above %.0f%%",
                    100 * otherCpuShare, 100 * MAX_OTHER_CPU_SHARE));
        }
        return why.toString();
    }

    /** The table's line: before, during, after, and the other processes' share. */
    String describe() {
        String samples = "unknown";
        if (!during.isEmpty()) {
            Stats stats = Stats.of(during.stream().mapToDouble(Double::doubleValue).toArray());
            samples = String.format(Locale.ROOT, "median %.2f (min %.2f, max %.2f, %d samples, every 15 s; counts the "
                    + "benchmarks' own threads)", stats.median(), stats.min(), stats.max(), stats.count());
        }
        return "before " + number(before) + "; during " + samples + "; after " + number(after)
                + "; other processes' CPU during the run: "
                + (Double.isNaN(otherCpuShare) ? "unknown" : String.format(Locale.ROOT, "%.0f%% of %d cores",
                        100 * otherCpuShare, cores));
    }

    private static String number(double value) {
        return Double.isNaN(value) ? "unknown" : String.format(Locale.ROOT, "%.2f", value);
    }

    /**
     * The share of CPU time others used between two readings: the machine's busy time less this process's
     * (with its reaped children), over the machine's total time (busy and idle, all cores).
     */
    static OptionalDouble otherShare(CpuTimes start, CpuTimes end) {
        long total = end.machineTotal() - start.machineTotal();
        if (total <= 0) {
            return OptionalDouble.empty();
        }
        long others = (end.machineBusy() - start.machineBusy()) - (end.own() - start.own());
        return OptionalDouble.of(Math.max(0, Math.min(1, (double) others / total)));
    }

    /**
     * One reading of CPU times, in clock ticks.
     *
     * @param machineBusy all cores' non-idle time ({@code /proc/stat}: user, nice, system, irq, softirq, steal)
     * @param machineTotal all cores' time, idle and iowait included
     * @param own this process's and its reaped children's user and system time ({@code /proc/self/stat})
     */
    record CpuTimes(long machineBusy, long machineTotal, long own) {

        /** Parses the {@code cpu} line of {@code /proc/stat} and the line of {@code /proc/self/stat}. */
        static CpuTimes parse(String procStat, String selfStat) {
            String cpu = procStat.lines().filter(line -> line.startsWith("cpu ")).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no cpu line in /proc/stat"));
            String[] fields = cpu.trim().split("\\s+");
            long[] ticks = new long[fields.length - 1];
            for (int i = 1; i < fields.length; i++) {
                ticks[i - 1] = Long.parseLong(fields[i]);
            }
            // user nice system idle iowait irq softirq steal [guest guest_nice: already in user and nice]
            long busy = ticks[0] + ticks[1] + ticks[2] + at(ticks, 5) + at(ticks, 6) + at(ticks, 7);
            long total = busy + ticks[3] + at(ticks, 4);
            // /proc/self/stat: "pid (comm) state ..." where comm may hold spaces; fields from the last ')'
            String[] self = selfStat.substring(selfStat.lastIndexOf(')') + 2).trim().split("\\s+");
            // after the comm, field 3 (state) is self[0]: utime is field 14, stime 15, cutime 16, cstime 17
            long own = Long.parseLong(self[11]) + Long.parseLong(self[12]) + Long.parseLong(self[13])
                    + Long.parseLong(self[14]);
            return new CpuTimes(busy, total, own);
        }

        private static long at(long[] ticks, int index) {
            return index < ticks.length ? ticks[index] : 0;
        }
    }
}
