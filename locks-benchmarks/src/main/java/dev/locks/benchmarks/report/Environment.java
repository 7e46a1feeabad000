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
import java.util.Optional;
import java.util.OptionalDouble;
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
            "org.springframework.data:spring-data-redis", "org.springframework.integration:spring-integration-jdbc",
            "net.javacrumbs.shedlock:shedlock-provider-jdbc-template", "com.zaxxer:HikariCP",
            "org.postgresql:postgresql", "org.openjdk.jmh:jmh-core", "org.openjdk.jol:jol-core");

    final String command;
    Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant finished;
    private final int cores = Runtime.getRuntime().availableProcessors();
    private double loadBefore = Double.NaN;
    private double loadAfter = Double.NaN;
    private Optional<Load.CpuTimes> cpuAtStart = Optional.empty();
    private OptionalDouble otherCpuShare = OptionalDouble.empty();
    private final List<Double> loads = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "load-sampler");
        thread.setDaemon(true);
        return thread;
    });

    Environment(String command) {
        this.command = command;
    }

    /**
     * Waits up to {@code settle} for the 1-minute load average to fall to what {@link Load} accepts (the build
     * that {@code run.sh} ran just before still shows in it), then takes the "before" readings and starts
     * sampling the load every 15 seconds. The run starts here.
     */
    void begin(Duration settle) throws InterruptedException {
        long deadline = System.nanoTime() + settle.toNanos();
        double quiet = Load.MAX_LOAD_PER_CORE * cores;
        OptionalDouble load = loadAverage();
        while (load.isPresent() && load.getAsDouble() > quiet && System.nanoTime() < deadline) {
            System.out.printf(Locale.ROOT, "# load average %.2f, waiting (up to %d s) for it to fall to %.2f%n",
                    load.getAsDouble(), settle.toSeconds(), quiet);
            Thread.sleep(5_000);
            load = loadAverage();
        }
        loadBefore = load.orElse(Double.NaN);
        cpuAtStart = cpuTimes();
        started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        sampler.scheduleAtFixedRate(() -> loadAverage().ifPresent(loads::add), 15, 15, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        if (finished != null) {
            return;
        }
        sampler.shutdownNow();
        finished = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        loadAfter = loadAverage().orElse(Double.NaN);
        Optional<Load.CpuTimes> end = cpuTimes();
        if (cpuAtStart.isPresent() && end.isPresent()) {
            otherCpuShare = Load.otherShare(cpuAtStart.get(), end.get());
        }
    }

    Duration duration() {
        return Duration.between(started, finished == null ? Instant.now() : finished);
    }

    /** The load around the run: before, sampled during, after, and the CPU other processes took meanwhile. */
    Load load() {
        return new Load(cores, loadBefore, loads, loadAfter, otherCpuShare.orElse(Double.NaN));
    }

    Map<String, String> machine() {
        Map<String, String> machine = new LinkedHashMap<>();
        machine.put("cores (nproc)", Integer.toString(cores));
        machine.put("CPU", cpuModel());
        machine.put("memory", memory());
        machine.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        machine.put("JDK", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vm.vendor") + ")");
        machine.put("JVM options of every fork", String.join(" ", JmhSuite.FORK_JVM_ARGS) + ", G1 (default)");
        machine.put("redis-server", redisVersion());
        machine.put("PostgreSQL", postgresVersion());
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

    private static OptionalDouble loadAverage() {
        try {
            String line = Files.readString(Path.of("/proc/loadavg")).trim();
            return OptionalDouble.of(Double.parseDouble(line.split(" ")[0]));
        } catch (IOException | RuntimeException e) {
            return OptionalDouble.empty();
        }
    }

    private static Optional<Load.CpuTimes> cpuTimes() {
        try {
            return Optional.of(Load.CpuTimes.parse(Files.readString(Path.of("/proc/stat")),
                    Files.readString(Path.of("/proc/self/stat"))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
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

    private static Optional<String> firstValue(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key)) {
                    return Optional.of(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return Optional.empty();
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

    static boolean postgresAvailable() {
        return !postgresVersion().equals("not installed");
    }

    /**
     * {@code postgres --version} of the server the JDBC benchmarks start: from {@code $PG_BIN}, else the newest
     * Debian install, else the PATH (where locks-jdbc's test {@code PostgresServer} looks, in the same order
     * but for the PATH).
     */
    private static String postgresVersion() {
        String command = "postgres";
        String configured = System.getenv("PG_BIN");
        Path debian = Path.of("/usr/lib/postgresql");
        if (configured != null && Files.isExecutable(Path.of(configured, "postgres"))) {
            command = Path.of(configured, "postgres").toString();
        } else if (Files.isDirectory(debian)) {
            try (var versions = Files.list(debian)) {
                command = versions.map(version -> version.resolve("bin/postgres")).filter(Files::isExecutable)
                        .max((a, b) -> Integer.compare(major(a), major(b))).map(Path::toString).orElse(command);
            } catch (IOException e) {
                // the PATH, then
            }
        }
        try {
            Process process = new ProcessBuilder(command, "--version").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.waitFor() == 0 ? out.replace("postgres (PostgreSQL) ", "") : "not installed";
        } catch (IOException e) {
            return "not installed";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static int major(Path postgres) {
        try {
            String version = postgres.getParent().getParent().getFileName().toString();
            return Integer.parseInt(version.replaceAll("\\D.*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
