package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.contract.Threads;
import dev.locks.redis.test.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An interrupted computer's own round trips still store its value (SPEC section 3, "Interrupts"; issue 9,
 * observation 4): Lettuce fails a command on an interrupted thread unless the status is cleared around it.
 */
class RedisComputeInterruptTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration TTL = Duration.ofMinutes(1);

    private final Threads threads = new Threads();
    private RedisComputeCache computer;
    private RedisComputeCache reader;

    @AfterEach
    void close() {
        threads.close();
        if (computer != null) {
            computer.close();
        }
        if (reader != null) {
            reader.close();
        }
    }

    @Test
    void interruptedComputerShouldStoreItsValueAndKeepItsStatus() throws Exception {
        computer = RedisComputeCache.builder(redis.connectionFactory()).build();
        reader = RedisComputeCache.builder(redis.newConnectionFactory()).build();

        threads.run(() -> {
            for (int i = 0; i < 100; i++) {
                String value = "v" + i;
                Thread.currentThread().interrupt();
                assertThat(computer.fetchOrCompute("k" + i, TTL, () -> value)).isEqualTo(value);
                assertThat(Thread.interrupted()).as("status kept").isTrue();
            }
            return null;
        });

        AtomicInteger computed = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            assertThat(reader.fetchOrCompute("k" + i, TTL, () -> "again " + computed.incrementAndGet()))
                    .as("stored in Redis by the interrupted computer").isEqualTo("v" + i);
        }
        assertThat(computed).hasValue(0);
    }
}
