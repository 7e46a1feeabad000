package dev.locks.benchmarks.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Where and when a comparison ran: machine, JDK, library versions, and the load average sampled while it ran
 * (the machine may be shared: numbers taken under load say so).
 */
final class Environment implements AutoCloseable {

    /** The libraries whose versions the report names, as {@code group:artifact}. */
    private static final List<String> LIBRARIES = List.of(
            "dev.locks:locks-core", "org.springframework.integration:spring-integration-core",
            "org.springframework.integration:spring-integration-redis", "com.google.guava:guava",
            "com.github.ben-manes.caffeine:caffeine", "org.springframework:spring-context",
            "org.springframework.boot:spring-boot", "org.redisson:redisson",
            "net.javacrumbs.shedlock:shedlock-provider-redis-spring", "io.lettuce:lettuce-core",
            "org.springframework.data:spring-data-redis", "org.openjdk.jmh:jmh-core", "org.openjdk.jol:jol-core");

    final String command;
    final Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant finished;
    private final List<Double> loads = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "load-sampler");
        thread.setDaemon(true);
        return thread;
    });

    Environment(String command) {
        this.command = command;
        sampler.scheduleAtFixedRate(() -> loadAverage().ifPresent(loads::add), 0, 15, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        finished = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        loadAverage().ifPresent(loads::add);
    }

    Duration duration() {
        return Duration.between(started, finished == null ? Instant.now() : finished);
    }

    /** The 1-minute load average while the comparison ran: min, median, max of the samples. */
    String load() {
        if (loads.isEmpty()) {
            return "unknown";
        }
        Stats stats = Stats.of(loads.stream().mapToDouble(Double::doubleValue).toArray());
        return String.format(Locale.ROOT, "median %.2f (min %.2f, max %.2f, %d samples, every 15 s)",
                stats.median(), stats.min(), stats.max(), stats.count());
    }

    Map<String, String> machine() {
        Map<String, String> machine = new LinkedHashMap<>();
        machine.put("cores (nproc)", Integer.toString(Runtime.getRuntime().availableProcessors()));
        machine.put("CPU", cpuModel());
        machine.put("memory", memory());
        machine.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        machine.put("JDK", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vm.vendor") + ")");
        machine.put("JVM options of every fork", String.join(" ", JmhSuite.FORK_JVM_ARGS) + ", G1 (default)");
        machine.put("redis-server", redisVersion());
        return machine;
    }

    /** {@code artifact} to version, as resolved by the build (META-INF/locks-benchmarks/dependencies.txt). */
    Map<String, String> versions() {
        Map<String, String> versions = new LinkedHashMap<>();
        try (InputStream in = Environment.class.getResourceAsStream("/META-INF/locks-benchmarks/dependencies.txt")) {
            if (in == null) {
                return versions;
            }
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            for (String library : LIBRARIES) {
                for (String line : lines) {
                    String[] parts = line.trim().split(":");
                    if (parts.length >= 4 && (parts[0] + ":" + parts[1]).equals(library)) {
                        versions.put(parts[1], parts[3]);
                    }
                }
            }
        } catch (IOException e) {
            versions.put("(versions unreadable)", e.getMessage());
        }
        return versions;
    }

    private static java.util.Optional<Double> loadAverage() {
        try {
            String line = Files.readString(Path.of("/proc/loadavg")).trim();
            return java.util.Optional.of(Double.parseDouble(line.split(" ")[0]));
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    private static String cpuModel() {
        return firstValue(Path.of("/proc/cpuinfo"), "model name").orElse(System.getProperty("os.arch"));
    }

    private static String memory() {
        return firstValue(Path.of("/proc/meminfo"), "MemTotal")
                .map(kb -> Math.round(Long.parseLong(kb.replace("kB", "").trim()) / 1024.0 / 1024.0) + " GiB")
                .orElse("unknown");
    }

    private static java.util.Optional<String> firstValue(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key)) {
                    return java.util.Optional.of(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return java.util.Optional.empty();
    }

    static boolean redisAvailable() {
        return !redisVersion().equals("not installed");
    }

    private static String redisVersion() {
        try {
            Process process = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            process.waitFor();
            List<String> words = new ArrayList<>(List.of(out.split(" ")));
            return words.stream().filter(word -> word.startsWith("v=")).findFirst().map(v -> v.substring(2))
                    .orElse(out);
        } catch (IOException e) {
            return "not installed";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
