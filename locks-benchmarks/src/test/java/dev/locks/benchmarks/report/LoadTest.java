package dev.locks.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The load gate: a verdict only from a run on a quiet machine, the figures always. */
class LoadTest {

    private static Load load(double before, double otherShare) {
        return new Load(2, before, List.of(2.1, 3.9, 2.4), 1.5, otherShare);
    }

    @Test
    void quietRunShouldAllowAVerdict() {
        assertThat(load(0.2, 0.05).allowsVerdict()).isTrue();
        assertThat(load(1.0, 0.25).allowsVerdict()).as("on the bounds: 0.5 × 2 cores, a quarter of the CPU").isTrue();
        assertThat(load(0.2, 0.05).whyNoVerdict()).isEmpty();
    }

    @Test
    void loadedRunShouldAllowNoVerdictAndSayWhy() {
        assertThat(load(1.01, 0.05).allowsVerdict()).isFalse();
        assertThat(load(1.01, 0.05).whyNoVerdict()).contains("before the run was 1.01, above 1.00 (0.5 × 2 cores)");
        assertThat(load(0.2, 0.4).allowsVerdict()).isFalse();
        assertThat(load(0.2, 0.4).whyNoVerdict()).contains("other processes used 40% of the machine's CPU");
        assertThat(load(3, 0.4).whyNoVerdict()).contains("before").contains("other processes");
    }

    @Test
    void unknownLoadShouldAllowNoVerdict() {
        assertThat(load(Double.NaN, 0.05).allowsVerdict()).isFalse();
        assertThat(load(0.2, Double.NaN).allowsVerdict()).isFalse();
        assertThat(load(0.2, Double.NaN).whyNoVerdict()).contains("unknown");
    }

    @Test
    void describeShouldNameBeforeDuringAfterAndTheOthersShare() {
        assertThat(load(0.3, 0.12).describe()).isEqualTo("before 0.30; during median 2.40 (min 2.10, max 3.90, 3 samples,"
                + " every 15 s; counts the benchmarks' own threads); after 1.50; other processes' CPU during the run:"
                + " 12% of 2 cores");
    }

    @Test
    void otherShareShouldBeTheMachinesBusyTimeLessOurOwnOverAllTime() {
        // /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice; /proc/self/stat with a
        // command name that holds spaces and a parenthesis
        Load.CpuTimes start = Load.CpuTimes.parse("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\n",
                "42 (java (main) x) S 1 42 42 0 -1 4194304 100 0 0 0 30 10 5 5 20 0 30 0 1 0");
        Load.CpuTimes end = Load.CpuTimes.parse("cpu  400 0 150 1200 50 10 10 0 0 0\n",
                "42 (java (main) x) S 1 42 42 0 -1 4194304 100 0 0 0 230 60 105 25 20 0 30 0 1 0");

        assertThat(start).isEqualTo(new Load.CpuTimes(150, 1000, 50));
        assertThat(end).isEqualTo(new Load.CpuTimes(570, 1820, 420));
        // busy 420 of 820 ticks, 370 of them ours (and our children's): others used 50 / 820
        assertThat(Load.otherShare(start, end).getAsDouble()).isCloseTo(50 / 820.0, offset(1e-9));
        assertThat(Load.otherShare(end, end)).isEmpty();
    }

    @Test
    void loadedRunShouldWriteTheFiguresButNoVerdict() {
        List<Measurement> measured = List.of(
                new Measurement("LocalSingleKey", "thisProject", 1, "ns/op", 30, 29, 31, Map.of()),
                new Measurement("LocalSingleKey", "floorConcurrentHashMap", 1, "ns/op", 25, 24, 26, Map.of()));

        String quiet = Report.targets(measured, load(0.2, 0.05));
        String loaded = Report.targets(measured, load(1.9, 0.05));

        assertThat(quiet).contains("| 1.20× (30.0 vs 25.0 ns/op) | met |").doesNotContain(Report.NO_VERDICT);
        assertThat(loaded).contains("No verdict from this run: the load average before the run was 1.90")
                .contains("| 1.20× (30.0 vs 25.0 ns/op) | loaded, no verdict |")
                .contains("| not measured in this run | — |")
                .doesNotContain("| met |").doesNotContain("missed**");
    }
}
