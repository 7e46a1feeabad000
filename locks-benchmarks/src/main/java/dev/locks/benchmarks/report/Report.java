package dev.locks.benchmarks.report;

import dev.locks.benchmarks.report.Catalog.Column;
import dev.locks.benchmarks.report.Catalog.Row;
import dev.locks.benchmarks.report.Catalog.Table;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The results of one comparison as Markdown: environment, targets, then one table per comparison. */
final class Report {

    /** The verdict of every target measured in a loaded run. */
    static final String NO_VERDICT = "loaded, no verdict";

    private final Environment environment;
    private final List<Measurement> measurements;
    private final StringBuilder out = new StringBuilder();

    Report(Environment environment, List<Measurement> measurements) {
        this.environment = environment;
        this.measurements = measurements;
    }

    String render() {
        environment();
        targets();
        for (Table table : Catalog.TABLES) {
            table(table);
        }
        String work = serverWork(measurements);
        if (!work.isEmpty()) {
            line(work);
        }
        return out.toString();
    }

    private void environment() {
        line("### This run");
        line("");
        line("| | |");
        line("| --- | --- |");
        line("| command | `" + environment.command + "` |");
        line("| when | " + environment.started + " to " + environment.finished + " (" + minutes() + ") |");
        line("| load average (1 min) | " + environment.load().describe() + " |");
        environment.machine().forEach((key, value) -> line("| " + key + " | " + value + " |"));
        StringBuilder versions = new StringBuilder();
        environment.versions().forEach((artifact, version) ->
                versions.append(versions.length() == 0 ? "" : ", ").append(artifact).append(' ').append(version));
        line("| libraries | " + versions + " |");
        line("");
    }

    private String minutes() {
        long seconds = environment.duration().toSeconds();
        return String.format(Locale.ROOT, "%d min %02d s", seconds / 60, seconds % 60);
    }

    private void targets() {
        line(targets(measurements, environment.load()));
    }

    /**
     * The targets' table; from a loaded run ({@link Load#allowsVerdict()}) with the figures but "loaded, no
     * verdict" instead of met or missed, and why.
     */
    static String targets(List<Measurement> measurements, Load load) {
        StringBuilder table = new StringBuilder("### Targets (medians of this run)\n\n");
        boolean verdicts = load.allowsVerdict();
        if (!verdicts) {
            table.append("No verdict from this run: ").append(load.whyNoVerdict())
                    .append(". Run it again on a quiet machine.\n\n");
        }
        table.append("| target | measured | verdict |\n| --- | --- | --- |\n");
        for (Targets.Verdict verdict : Targets.judge(measurements)) {
            String status = verdicts || verdict.status().equals(Targets.NOT_MEASURED) ? verdict.status()
                    : NO_VERDICT;
            table.append("| ").append(verdict.target()).append(" | ").append(verdict.measured()).append(" | ")
                    .append(status).append(" |\n");
        }
        return table.toString();
    }

    /**
     * Redis server work per operation: {@code INFO commandstats} calls (commands inside scripts included) per
     * operation, each implementation of each Redis benchmark at each thread count, and what the commands were.
     */
    static String serverWork(List<Measurement> measurements) {
        List<Measurement> counted = measurements.stream().filter(m -> m.extra().containsKey(ServerWork.PER_OP))
                .toList();
        if (counted.isEmpty()) {
            return "";
        }
        StringBuilder table = new StringBuilder("### Redis: server commands per operation\n\n");
        table.append("What `redis-server` ran per operation (a lock cycle: acquire + release; a cache hit), from "
                + "`INFO commandstats` read before and after each measured iteration (commands inside Lua scripts "
                + "counted), divided by the operations JMH counted in them; lower is better. Counts do not depend on "
                + "the machine's load. Beside them, the CPU time the server process used in the same iterations "
                + "(`INFO cpu`, user + system) per operation: all the server's work for an operation, reading "
                + "commands and writing replies included, which a shared machine's noise moves less than "
                + "throughput.\n\n");
        table.append("| benchmark | implementation | threads | commands per operation | server CPU µs per operation "
                + "| by command |\n").append("| --- | --- | ---: | ---: | ---: | --- |\n");
        for (Measurement m : counted) {
            table.append("| ").append(m.group()).append(" | ").append(m.name())
                    .append(" | ").append(m.threads()).append(" | ").append(m.extra().get(ServerWork.PER_OP))
                    .append(" | ").append(m.extra().getOrDefault(ServerWork.CPU_PER_OP, "—"))
                    .append(" | ").append(ServerWork.breakdown(m)).append(" |\n");
        }
        return table.toString();
    }

    private void table(Table table) {
        List<Integer> threads = measurements.stream().filter(m -> m.group().equals(table.group()))
                .map(Measurement::threads).distinct().sorted().toList();
        if (threads.isEmpty()) {
            return;
        }
        String unit = measurements.stream().filter(m -> m.group().equals(table.group())).findFirst()
                .map(Measurement::unit).orElse("");
        line("### " + table.title());
        line("");
        line(table.note() + " Unit: " + unit + ". \"÷ this project\": the row's median divided by this project's"
                + (table.higherIsBetter() ? " (below 1: worse than this project)."
                        : " (below 1: better than this project)."));
        line("");
        StringBuilder header = new StringBuilder("| implementation |");
        StringBuilder rule = new StringBuilder("| --- |");
        for (int count : threads) {
            String t = threads.size() > 1 ? count + " thread" + (count == 1 ? "" : "s") + ": " : "";
            header.append(' ').append(t).append("median | spread | ÷ this project |");
            rule.append(" ---: | ---: | ---: |");
            if (table.baseline() != null) {
                header.append(" overhead |");
                rule.append(" ---: |");
            }
        }
        for (Column column : table.columns()) {
            header.append(' ').append(column.header()).append(" |");
            rule.append(" --- |");
        }
        line(header.toString());
        line(rule.toString());
        String ours = table.rows().get(0).name();
        for (Row row : table.rows()) {
            StringBuilder cells = new StringBuilder("| " + row.label() + " |");
            Measurement any = null;
            for (int count : threads) {
                Optional<Measurement> m = find(table.group(), row.name(), count);
                Optional<Measurement> reference = find(table.group(), ours, count);
                if (m.isEmpty()) {
                    cells.append(" — | — | — |").append(table.baseline() == null ? "" : " — |");
                    continue;
                }
                any = m.get();
                cells.append(' ').append(number(m.get().median())).append(" | ")
                        .append(number(m.get().min())).append('–').append(number(m.get().max())).append(" | ")
                        .append(reference.map(r -> ratio(m.get().median() / r.median())).orElse("—")).append(" |");
                if (table.baseline() != null) {
                    cells.append(' ').append(find(table.group(), table.baseline(), count)
                            .map(b -> number(m.get().median() - b.median())).orElse("—")).append(" |");
                }
            }
            for (Column column : table.columns()) {
                String value = any == null ? null : column.value().apply(any);
                cells.append(' ').append(value == null ? "—" : value).append(" |");
            }
            line(cells.toString());
        }
        line("");
    }

    private Optional<Measurement> find(String group, String name, int threads) {
        return measurements.stream()
                .filter(m -> m.group().equals(group) && m.name().equals(name) && m.threads() == threads)
                .findFirst();
    }

    /** A number with three significant digits or so, and thousands separated. */
    static String number(double value) {
        double magnitude = Math.abs(value);
        if (magnitude >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (magnitude >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String ratio(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private void line(String text) {
        out.append(text).append('\n');
    }
}
