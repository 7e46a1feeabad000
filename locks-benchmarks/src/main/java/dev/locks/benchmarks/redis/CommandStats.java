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
 * @param calls command name ({@code set}, {@code config|resetstat}) to calls
 */
public record CommandStats(Map<String, Long> calls) {

    /** The commands a benchmark's own bookkeeping sends (reading these statistics), left out of its counts. */
    static final Set<String> BOOKKEEPING = Set.of("info", "config|resetstat");

    public CommandStats {
        calls = Map.copyOf(calls);
    }

    public static CommandStats none() {
        return new CommandStats(Map.of());
    }

    /** Parses an {@code INFO commandstats} reply ({@code cmdstat_<name>:calls=<n>,usec=...} lines). */
    public static CommandStats parse(String info) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
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
        return new CommandStats(calls);
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
        return new CommandStats(delta);
    }

    public CommandStats plus(CommandStats other) {
        Map<String, Long> sum = new TreeMap<>(calls);
        other.calls.forEach((name, count) -> sum.merge(name, count, Long::sum));
        return new CommandStats(sum);
    }

    public long total() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** As one line, {@code name=calls} sorted by name: what {@link #read} reads. */
    public String format() {
        StringBuilder line = new StringBuilder();
        new TreeMap<>(calls).forEach((name, count) -> line.append(line.length() == 0 ? "" : ",").append(name)
                .append('=').append(count));
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
            for (String pair : Files.readString(file).trim().split(",")) {
                if (!pair.isEmpty()) {
                    calls.put(pair.substring(0, pair.indexOf('=')), Long.parseLong(pair.substring(pair.indexOf('=') + 1)));
                }
            }
            return new CommandStats(calls);
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
