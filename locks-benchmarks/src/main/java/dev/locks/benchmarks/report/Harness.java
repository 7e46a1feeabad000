package dev.locks.benchmarks.report;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain harness of this jar (hand-off, stampede, memory), run in a JVM of its own like a JMH fork, whose
 * {@link ResultLine}s become measurements; everything else it prints goes to its log.
 *
 * @param name the log's name
 * @param mainClass the harness
 * @param threads the thread count its measurements are reported with
 * @param jvmArgs the child JVM's options
 * @param args its arguments for a full run
 * @param quickArgs its arguments for a quick run
 */
record Harness(String name, String mainClass, int threads, List<String> jvmArgs, List<String> args,
        List<String> quickArgs) {

    /** A heap touched whole at start, as every JMH fork's ({@link JmhSuite#FORK_JVM_ARGS}). */
    private static final List<String> PRE_TOUCHED_512M = List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch");

    static final List<Harness> ALL = List.of(
            new Harness("handoff", "dev.locks.benchmarks.handoff.HandOff", 2, PRE_TOUCHED_512M,
                    List.of("5", "2000", "40"), List.of("1", "200", "5")),
            new Harness("JdbcHandOff", "dev.locks.benchmarks.handoff.JdbcHandOff", 2, PRE_TOUCHED_512M,
                    List.of("5", "500", "20"), List.of("1", "100", "5")),
            new Harness("stampede", "dev.locks.benchmarks.stampede.Stampede", 1000,
                    List.of("-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"),
                    List.of("10", "1000"), List.of("1", "1000")),
            new Harness("freshValues", "dev.locks.benchmarks.fresh.FreshValues", 8, PRE_TOUCHED_512M,
                    List.of("10", "3"), List.of("1", "1")),
            new Harness("memory", "dev.locks.benchmarks.memory.HeldLockMemory", 1,
                    List.of("-Xmx4g", "-Djdk.attach.allowAttachSelf=true", "-Djol.magicFieldOffset=true"),
                    List.of("1000000", "100000"), List.of("100000", "10000")));

    /**
     * This harness with {@code arg} after its arguments, full and quick: the fresh-values harness takes a regex
     * of its variants as its third.
     */
    Harness withArg(String arg) {
        return new Harness(name, mainClass, threads, jvmArgs, append(args, arg), append(quickArgs, arg));
    }

    private static List<String> append(List<String> list, String arg) {
        List<String> longer = new ArrayList<>(list);
        longer.add(arg);
        return List.copyOf(longer);
    }

    List<Measurement> run(boolean quick, Path out) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(quick ? quickArgs : args);
        System.out.println("# Harness: " + String.join(" ", command.subList(command.indexOf(mainClass),
                command.size())));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<Measurement> measured = new ArrayList<>();
        Path log = out.resolve(name + ".log");
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter writer = new PrintWriter(Files.newBufferedWriter(log))) {
            for (String line; (line = reader.readLine()) != null; ) {
                writer.println(line);
                String read = line;
                ResultLine.parse(read).ifPresent(result -> {
                    System.out.println(read);
                    measured.add(Measurement.of(result, threads));
                });
            }
        }
        if (process.waitFor() != 0) {
            throw new IllegalStateException(mainClass + " failed with exit code " + process.exitValue()
                    + "; see " + log);
        }
        return measured;
    }
}
