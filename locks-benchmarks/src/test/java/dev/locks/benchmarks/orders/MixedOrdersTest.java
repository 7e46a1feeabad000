package dev.locks.benchmarks.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.benchmarks.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The workload runs, and (SPEC "No starvation") no order of any size gives up, small and bounded. */
class MixedOrdersTest {

    @Test
    void mixedOrdersOnTwoNodesShouldFinishWithoutTimeouts() throws Exception {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            List<MixedOrders.Size> sizes = MixedOrders.run(server.port(), new MixedOrders.Settings(
                    Duration.ofSeconds(3), 2, 4, 12, Duration.ofSeconds(10), Duration.ofMillis(1)));

            assertThat(sizes).hasSize(3).allSatisfy(size -> {
                assertThat(size.orders()).isPositive();
                assertThat(size.timeouts()).isZero();
            });
        }
    }
}
