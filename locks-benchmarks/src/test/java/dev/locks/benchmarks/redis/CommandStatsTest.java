package dev.locks.benchmarks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandStatsTest {

    /** An INFO commandstats reply as redis-server 7.0 writes it (CRLF, a header, subcommands with a bar). */
    private static final String INFO = "# Commandstats\r\n"
            + "cmdstat_evalsha:calls=20,usec=300,usec_per_call=15.00,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_set:calls=50,usec=100,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_config|resetstat:calls=1,usec=5,usec_per_call=5.00,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_info:calls=3,usec=90,usec_per_call=30.00,rejected_calls=0,failed_calls=0\r\n";

    @Test
    void parseShouldReadTheCallsOfEveryCommandIncludingSubcommands() {
        assertThat(CommandStats.parse(INFO).calls())
                .isEqualTo(Map.of("evalsha", 20L, "set", 50L, "config|resetstat", 1L, "info", 3L));
        assertThat(CommandStats.parse("# Commandstats\r\n").calls()).isEmpty();
    }

    @Test
    void sinceShouldCountWhatRanInBetweenWithoutTheBookkeeping() {
        CommandStats before = CommandStats.parse("cmdstat_evalsha:calls=5,usec=1\r\ncmdstat_info:calls=1,usec=1\r\n");
        CommandStats after = CommandStats.parse(INFO);

        CommandStats ran = after.since(before);

        assertThat(ran.calls()).as("commands new since, and the reading's own INFO and CONFIG left out")
                .isEqualTo(Map.of("evalsha", 15L, "set", 50L));
        assertThat(ran.total()).isEqualTo(65);
        assertThat(ran.plus(ran).calls()).isEqualTo(Map.of("evalsha", 30L, "set", 100L));
        assertThat(after.since(after).total()).isZero();
    }

    @Test
    void theServersCpuTimeShouldBeReadFromInfoCpuAndCountedLikeTheCalls(@TempDir Path dir) {
        String cpu = "# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\nused_cpu_sys_children:9.0\r\n";
        CommandStats before = CommandStats.parse(INFO + cpu);
        CommandStats after = CommandStats.parse(INFO.replace("calls=50", "calls=60")
                + cpu.replace("2.500000", "2.600250"));

        assertThat(before.cpuMicros()).isEqualTo(3_750_000);
        CommandStats ran = after.since(before);
        assertThat(ran.cpuMicros()).isEqualTo(100_250);
        assertThat(ran.total()).as("the CPU time is no command").isEqualTo(10);
        assertThat(ran.plus(ran).cpuMicros()).isEqualTo(200_500);
        Path file = dir.resolve("cpu.commandstats");
        ran.write(file);
        assertThat(CommandStats.read(file)).isEqualTo(ran);
    }

    @Test
    void whatIsWrittenShouldReadBackUnderTheNameOfItsBenchmark(@TempDir Path dir) {
        CommandStats stats = new CommandStats(Map.of("evalsha", 2L, "config|get", 1L));
        Path file = CommandStats.file(dir, "dev.locks.benchmarks.redis.RedisLocks.thisProject",
                Map.of("keyCount", "5"), 4);

        stats.write(file);

        assertThat(file.getFileName().toString()).isEqualTo("RedisLocks.thisProject-keyCount=5-t4.commandstats");
        assertThat(CommandStats.read(file)).isEqualTo(stats);
        CommandStats.none().write(file);
        assertThat(CommandStats.read(file).calls()).isEmpty();
    }
}
