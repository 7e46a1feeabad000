package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spi.RemoteLockStore.Owner;
import dev.locks.spi.RemoteLockStore.Ownership;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The lock cycle, and the cache hit, on a {@link LettuceConnectionFactory}: on the native connection it shares,
 * with no {@code RedisConnection} asked of the factory per call ({@link LettuceScripts}), and on the factory's
 * connections when it shares none.
 */
class LettuceScriptsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Owner OWNER = new Owner("node:1", "worker @ node");

    private CountingFactory factory;
    private RedisLockStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
        if (factory != null) {
            factory.destroy();
        }
    }

    @Test
    void cyclesShouldRunOnTheSharedNativeConnectionWithoutAConnectionPerCall() {
        start(true);
        cycle(); // the shared connection is had once

        int before = factory.connections.get();
        for (int i = 0; i < 20; i++) {
            cycle();
        }
        assertThat(factory.connections.get() - before).as("connections asked of the factory by 20 cycles").isZero();
    }

    @Test
    void aResetFactoryShouldGiveItsNewSharedConnection() {
        start(true);
        cycle();
        int before = factory.connections.get();

        factory.resetConnection(); // closes the shared connection; the factory makes a new one when asked
        cycle();
        cycle();

        assertThat(factory.connections.get() - before).as("once after the reset").isEqualTo(1);
    }

    @Test
    void aFactoryThatSharesNoConnectionShouldBeCalledThroughItsConnections() {
        start(false);
        cycle();
        int before = factory.connections.get();

        cycle();

        assertThat(factory.connections.get() - before).as("one connection per script call").isEqualTo(2);
    }

    @Test
    void aCacheHitShouldBeOneGetOnTheSharedNativeConnection() {
        start(true);
        RedisComputeStore cache = new RedisComputeStore(factory, "locks:");
        byte[] v = "v".getBytes(StandardCharsets.UTF_8);
        try {
            try (RedisConnection connection = factory.getConnection()) {
                connection.stringCommands().set("locks:value:k".getBytes(StandardCharsets.UTF_8), v);
            }
            assertThat(cache.get("k")).isEqualTo(v);
            int before = factory.connections.get();

            for (int i = 0; i < 20; i++) {
                assertThat(cache.get("k")).isEqualTo(v);
                assertThat(cache.get("missing")).isNull();
            }

            assertThat(factory.connections.get() - before).as("connections asked of the factory by 40 reads").isZero();
        } finally {
            cache.close();
        }
    }

    private void start(boolean shared) {
        factory = new CountingFactory(redis.port());
        factory.setShareNativeConnection(shared);
        factory.afterPropertiesSet();
        factory.start();
        store = new RedisLockStore(factory, "locks:", false);
    }

    private void cycle() {
        assertThat(store.tryAcquire(List.of("a", "b"), OWNER, 10_000).isTaken()).isTrue();
        assertThat(store.release(List.of(new Ownership("a", OWNER.id(), 0), new Ownership("b", OWNER.id(), 0))))
                .isEmpty();
    }

    /** Counts the connections it is asked for. */
    private static final class CountingFactory extends LettuceConnectionFactory {

        final AtomicInteger connections = new AtomicInteger();

        CountingFactory(int port) {
            super(new RedisStandaloneConfiguration("127.0.0.1", port));
        }

        @Override
        public RedisConnection getConnection() {
            connections.incrementAndGet();
            return super.getConnection();
        }
    }
}
