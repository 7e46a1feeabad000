package dev.locks.benchmarks.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a Redis server ran, per command, from {@code INFO commandstats}: {@code calls} counts every command,
 * including those a Lua script runs ({@code redis.call}), so a script call shows as its {@code evalsha} plus
 * what the script did. Counts, unlike times, do not depend on how loaded the machine is.
 *
 * <p>With them, the CPU time the server process used ({@code INFO cpu}: {@code used_cpu_user} plus
 * {@code used_cpu_sys}), all of its work for the commands included (reading and parsing them, running scripts,
 * writing replies): what a cycle costs the server, which throughput on a shared machine cannot tell apart from
 * the client's cost.
 *
 * @param calls command name ({@code set}, {@code config|resetstat}) to calls
 * @param cpuMicros the server's CPU time in microseconds; 0 when it was not read
 */
public record CommandStats(Map<String, Long> calls, long cpuMicros) {

    /** How {@link #format} writes the CPU time, beside the commands' calls. */
    private static final String CPU = "~cpu_usec";

    public CommandStats(Map<String, Long> calls) {
        this(calls, 0);
    }

    /** The commands a benchmark's own bookkeeping sends (reading these statistics), left out of its counts. */
    static final Set<String> BOOKKEEPING = Set.of("info", "config|resetstat");

    public CommandStats {
        calls = Map.copyOf(calls);
    }

    public static CommandStats none() {
        return new CommandStats(Map.of(), 0);
    }

    /**
     * Parses an {@code INFO commandstats} reply ({@code cmdstat_<name>:calls=<n>,usec=...} lines), and the
     * {@code used_cpu_user:} and {@code used_cpu_sys:} lines of an {@code INFO cpu} reply in it, if any.
     */
    public static CommandStats parse(String info) {
        Map<String, Long> calls = new TreeMap<>();
        long cpuMicros = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                cpuMicros += Math.round(Double.parseDouble(line.substring(line.indexOf(':') + 1).trim()) * 1e6);
                continue;
            }
            if (!line.startsWith("cmdstat_") || line.indexOf(':') < 0) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            for (String stat : line.substring(line.indexOf(':') + 1).split(",")) {
                if (stat.startsWith("calls=")) {
                    calls.put(name, Long.parseLong(stat.substring("calls=".length()).trim()));
                }
            }
        }
        return new CommandStats(calls, cpuMicros);
    }

    /** What ran between {@code earlier} and this, without the bookkeeping commands. */
    public CommandStats since(CommandStats earlier) {
        Map<String, Long> delta = new TreeMap<>();
        calls.forEach((name, count) -> {
            long ran = count - earlier.calls.getOrDefault(name, 0L);
            if (ran > 0 && !BOOKKEEPING.contains(name)) {
                delta.put(name, ran);
            }
        });
        return new CommandStats(delta, cpuMicros - earlier.cpuMicros);
    }

    public CommandStats plus(CommandStats other) {
        Map<String, Long> sum = new TreeMap<>(calls);
        other.calls.forEach((name, count) -> sum.merge(name, count, Long::sum));
        return new CommandStats(sum, cpuMicros + other.cpuMicros);
    }

    public long total() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** As one line, {@code name=calls} sorted by name, then the CPU time: what {@link #read} reads. */
    public String format() {
        StringBuilder line = new StringBuilder();
        new TreeMap<>(calls).forEach((name, count) -> line.append(line.length() == 0 ? "" : ",").append(name)
                .append('=').append(count));
        if (cpuMicros != 0) {
            line.append(line.length() == 0 ? "" : ",").append(CPU).append('=').append(cpuMicros);
        }
        return line.toString();
    }

    public void write(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, format() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What {@link #write} wrote. */
    public static CommandStats read(Path file) {
        try {
            Map<String, Long> calls = new TreeMap<>();
            long cpuMicros = 0;
            for (String pair : Files.readString(file).trim().split(",")) {
                if (pair.isEmpty()) {
                    continue;
                }
                String name = pair.substring(0, pair.indexOf('='));
                long value = Long.parseLong(pair.substring(pair.indexOf('=') + 1));
                if (name.equals(CPU)) {
                    cpuMicros = value;
                } else {
                    calls.put(name, value);
                }
            }
            return new CommandStats(calls, cpuMicros);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The file a benchmark fork writes its counts to and the report reads them from: one per benchmark method,
     * parameters and thread count, in {@code dir}.
     */
    public static Path file(Path dir, String benchmark, Map<String, String> params, int threads) {
        StringBuilder name = new StringBuilder(benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1));
        new TreeMap<>(params).forEach((key, value) -> name.append('-').append(key).append('=').append(value));
        return dir.resolve(name.append("-t").append(threads).append(".commandstats").toString());
    }
}
