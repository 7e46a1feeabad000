package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.redis.test.RedisConnections;
import dev.locks.redis.test.RedisServer;
import dev.locks.redis.test.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Issue 27, item 12: a holder cut off from Redis by a partition (its proxy forwards nothing, then delivers what
 * waited) must say {@code isHeld() == false} no later than another node takes its key (SPEC 3, "A lease is only
 * as long as the backend confirmed it").
 *
 * <p>Each round first holds the server's replies for a while: a watchdog renewal sent then runs in Redis at once
 * (Redis dates its {@code PEXPIRE} then) but is answered late, still within the lease. The holder may only count
 * its renewed lease from when it sent the renewal: counted from the answer, it would outlive Redis's expiry by
 * the reply's delay (here hundreds of milliseconds). Then the partition: nothing passes, the key expires in Redis,
 * and the other node (connected directly) takes it, while a thread polls the holder's {@code isHeld()} every few
 * microseconds.
 */
class RedisPartitionedHolderTest {

    private static final Duration LOCK_TIMEOUT = Duration.ofMillis(900);

    private RedisServer server;
    private TcpProxy proxy;
    private LettuceConnectionFactory throughProxy;
    private LettuceConnectionFactory direct;

    @BeforeEach
    void start() {
        server = RedisServer.start();
        proxy = TcpProxy.to(server.port());
        throughProxy = RedisConnections.connectionFactory(proxy.port(), Duration.ofSeconds(5));
        direct = RedisConnections.connectionFactory(server.port());
    }

    @AfterEach
    void stop() {
        proxy.close();
        throughProxy.destroy();
        direct.destroy();
        server.close();
    }

    @Test
    void aPartitionedHolderShouldStopSayingItHoldsItsKeyBeforeAnotherNodeTakesIt() throws Exception {
        try (RedisLockRegistry holder = RedisLockRegistry.builder(throughProxy).watchdog(true).notify(false).build();
                RedisLockRegistry other = RedisLockRegistry.builder(direct).notify(false).build()) {
            for (int round = 0; round < 6; round++) {
                String key = "k" + round;
                Lease lease = holder.acquire(List.of(key), AcquireOptions.defaults().withLockTimeout(LOCK_TIMEOUT));
                Thread.sleep(LOCK_TIMEOUT.toMillis() / 3 * 2 + 37L * round); // renewals go on meanwhile
                proxy.holdReplies(); // a renewal sent now runs in Redis, its answer comes only at the end of this
                Thread.sleep(LOCK_TIMEOUT.toMillis() / 2);
                proxy.resume();
                Thread.sleep(20); // the late answer is in; the next renewal is due only a third of the timeout on
                AtomicLong lastHeld = new AtomicLong();
                AtomicBoolean polling = new AtomicBoolean(true);
                Thread poller = new Thread(() -> {
                    while (polling.get()) {
                        long before = System.nanoTime();
                        if (lease.isHeld()) {
                            lastHeld.set(before);
                        }
                        Thread.onSpinWait();
                    }
                });
                poller.start();
                proxy.cut(); // the partition: a renewal sent from now on waits in the proxy
                long takenAt = 0;
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (takenAt == 0 && System.nanoTime() < deadline) {
                    Optional<Lease> taken = other.tryAcquire(List.of(key));
                    if (taken.isPresent()) {
                        takenAt = System.nanoTime();
                        taken.get().close();
                    }
                }
                Thread.sleep(50);
                polling.set(false);
                poller.join();
                proxy.resume(); // what waited is delivered, late
                lease.close();
                assertThat(takenAt).as("the other node took the key").isPositive();
                assertThat(lastHeld.get() - takenAt).as("round %d: ns the holder still said it held its key after"
                        + " the other node took it", round).isNegative();
            }
        }
    }
}
