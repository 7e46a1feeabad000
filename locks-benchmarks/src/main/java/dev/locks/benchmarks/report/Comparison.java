package dev.locks.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The whole comparison in one command: every JMH benchmark at each of its thread counts, then the hand-off,
 * stampede and memory harnesses, each in JVMs of their own; then the tables, with medians, spreads and ratios
 * of this one run, written to {@code <out>/results.md} and, with {@code --doc}, between the result markers of
 * {@code docs/benchmarks.md}. About 17 minutes on 2 cores. {@code locks-benchmarks/run.sh} builds and runs it.
 *
 * <p>Options: {@code --quick} (every benchmark once, briefly: checks that all of it runs, numbers meaningless),
 * {@code --only REGEX} (the suites whose name matches, e.g. {@code 'Local|handoff'}; cannot be combined with
 * {@code --doc}), {@code --doc FILE}, {@code --out DIR} (default {@code locks-benchmarks/target/comparison}),
 * {@code --command TEXT} (the command the report names), {@code --settle SECONDS} (how long to wait at most for
 * the machine's load average to fall before the first benchmark: default 120, 0 with {@code --quick}).
 */
public final class Comparison {

    static final String BEGIN = "<!-- results:begin -->";
    static final String END = "<!-- results:end -->";

    private Comparison() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        Integer settle = null;
        Pattern only = null;
        Path doc = null;
        Path out = Path.of("locks-benchmarks", "target", "comparison");
        String command = "java -cp locks-benchmarks/target/benchmarks.jar " + Comparison.class.getName() + " "
                + String.join(" ", args);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--only" -> only = Pattern.compile(args[++i]);
                case "--doc" -> doc = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--command" -> command = args[++i];
                case "--settle" -> settle = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--quick, --only REGEX, --doc FILE, --out DIR, --command TEXT, --settle SECONDS)");
            }
        }
        if (doc != null && (only != null || quick)) {
            throw new IllegalArgumentException("--doc takes a full run: not with --only or --quick");
        }
        Files.createDirectories(out);
        List<Measurement> measured = new ArrayList<>();
        String markdown;
        try (Environment environment = new Environment(command)) {
            environment.begin(Duration.ofSeconds(settle != null ? settle : quick ? 0 : 120));
            boolean redis = Environment.redisAvailable();
            boolean postgres = Environment.postgresAvailable();
            for (JmhSuite suite : JmhSuite.ALL) {
                String name = suite.benchmarkClass();
                if (!redis && suite.needsRedis()) {
                    System.out.println("# redis-server is not installed: skipping " + name);
                } else if (!postgres && needsPostgres(name)) {
                    System.out.println("# PostgreSQL is not installed: skipping " + name);
                } else if (matches(only, name)) {
                    measured.addAll(suite.run(quick, out));
                }
            }
            for (Harness harness : Harness.ALL) {
                if (!postgres && needsPostgres(harness.name())) {
                    System.out.println("# PostgreSQL is not installed: skipping " + harness.name());
                } else if (matches(only, harness.name()) && !redis && harness.name().equals("freshValues")) {
                    System.out.println("# redis-server is not installed: fresh values in memory only");
                    measured.addAll(harness.withArg("^(?!redis)").run(quick, out));
                } else if (matches(only, harness.name())) {
                    measured.addAll(harness.run(quick, out));
                }
            }
            environment.close();
            markdown = new Report(environment, measured).render();
        }
        Path results = out.resolve("results.md");
        Files.writeString(results, markdown);
        System.out.println("# Results: " + results.toAbsolutePath());
        if (doc != null) {
            splice(doc, markdown);
            System.out.println("# Updated: " + doc.toAbsolutePath());
        }
    }

    /** The suites that start a PostgreSQL of their own are the ones named {@code Jdbc...}. */
    static boolean needsPostgres(String suite) {
        return suite.startsWith("Jdbc");
    }

    private static boolean matches(Pattern only, String name) {
        return only == null || only.matcher(name).find();
    }

    /** Replaces what lies between the result markers of {@code doc}. */
    private static void splice(Path doc, String markdown) throws IOException {
        String text = Files.readString(doc);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalStateException(doc + " has no " + BEGIN + " ... " + END + " section to fill");
        }
        Files.writeString(doc, text.substring(0, begin + BEGIN.length()) + "\n" + markdown + text.substring(end));
    }
}
