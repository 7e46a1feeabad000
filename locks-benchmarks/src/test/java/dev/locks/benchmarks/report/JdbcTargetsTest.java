package dev.locks.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JDBC targets: this project against the best rival, its own polling variant never counted as a rival. */
class JdbcTargetsTest {

    @Test
    void cycleShouldBeJudgedAgainstTheFastestRival() {
        List<Targets.Verdict> verdicts = Targets.judge(List.of(
                cycle("thisProject", 1000), cycle("springIntegration", 500), cycle("shedLock", 1200)));

        Targets.Verdict verdict = find(verdicts, "PostgreSQL cycle throughput ≥ each rival's, 1 key(s), 1 thread(s)");
        assertThat(verdict.measured()).startsWith("0.83× the best rival (shedLock");
        assertThat(verdict.status()).isEqualTo("**missed**");
        assertThat(find(verdicts, "PostgreSQL cycle throughput ≥ each rival's, 5 key(s), 4 thread(s)").status())
                .isEqualTo(Targets.NOT_MEASURED);
    }

    @Test
    void handOffShouldBeJudgedAgainstTheQuickestRivalAndNotAgainstItsOwnPolling() {
        List<Targets.Verdict> verdicts = Targets.judge(List.of(handOff("thisProject", 2000),
                handOff("thisProjectPolling", 1000), handOff("springIntegration", 40000), handOff("shedLock", 50000)));

        Targets.Verdict verdict = find(verdicts, "PostgreSQL hand-off (`NOTIFY`) faster than each rival's polling");
        assertThat(verdict.measured()).contains("(springIntegration)").endsWith("20.0× faster");
        assertThat(verdict.status()).isEqualTo("met");
    }

    private static Measurement cycle(String name, double perSecond) {
        return new Measurement("JdbcLocks:db=postgresql:keyCount=1", name, 1, "ops/s", perSecond, perSecond, perSecond, Map.of());
    }

    private static Measurement handOff(String name, double micros) {
        return new Measurement("JdbcHandOff", name, 2, "µs", micros, micros, micros, Map.of());
    }

    private static Targets.Verdict find(List<Targets.Verdict> verdicts, String target) {
        return verdicts.stream().filter(v -> v.target().equals(target)).findFirst().orElseThrow();
    }
}
