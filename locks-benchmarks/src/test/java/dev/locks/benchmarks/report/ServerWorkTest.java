package dev.locks.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.benchmarks.redis.CommandStats;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerWorkTest {

    @Test
    void serverWorkShouldBeCallsPerOperationMostFirst() {
        Map<String, String> extra = ServerWork.perOperation(
                new CommandStats(Map.of("evalsha", 2_000L, "set", 5_000L, "time", 1_000L, "del", 1_000L), 12_340), 1_000);

        assertThat(extra).containsEntry(ServerWork.PER_OP, "9.00").containsEntry("serverCommandsPerOp.set", "5.00")
                .containsEntry("serverOps", "1000").containsEntry(ServerWork.CPU_PER_OP, "12.34");
        Measurement m = new Measurement("RedisLocks:keyCount=5", "thisProject", 4, "ops/s", 1, 1, 1, Map.of())
                .withExtra(extra);
        assertThat(ServerWork.breakdown(m)).isEqualTo("set 5.00, evalsha 2.00, del 1.00, time 1.00");
        assertThat(Report.serverWork(List.of(m)))
                .contains("| RedisLocks:keyCount=5 | thisProject | 4 | 9.00 | 12.34 | set 5.00, evalsha 2.00, del 1.00, "
                        + "time 1.00 |");
    }

    @Test
    void uncountedRunsShouldShowNoServerWork() {
        assertThat(ServerWork.perOperation(new CommandStats(Map.of("set", 5L)), 0)).isEmpty();
        Measurement m = new Measurement("RedisLocks:keyCount=1", "thisProject", 1, "ops/s", 1, 1, 1, Map.of());
        assertThat(ServerWork.breakdown(m)).isNull();
        assertThat(Report.serverWork(List.of(m))).isEmpty();
    }
}
