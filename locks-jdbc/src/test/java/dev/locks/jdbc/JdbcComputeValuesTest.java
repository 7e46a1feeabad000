package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeFailedException;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.contract.ComputeCacheStall;
import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.spi.JdkValueSerializer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Values in the database are bytes that anyone with write access to the table could have put there: the default
 * serializer never instantiates a class outside its allow-list, and a value that cannot be read is a miss (removed,
 * computed again, counted), never a failure.
 */
class JdbcComputeValuesTest {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    private static final Duration TTL = Duration.ofMinutes(1);
    private static final String KEY = "quotes:ACME";

    /** A class whose deserialization would be an attacker's gadget. */
    static final class Gadget implements Serializable {
        static volatile boolean deserialized;

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            deserialized = true;
        }
    }

    record Quote(String symbol, BigDecimal price) implements Serializable {
    }

    private final Map<ComputeResult, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final LocksObserver observer = new LocksObserver() {
        @Override
        public void onCompute(ComputeResult result, long nanos) {
            outcomes.computeIfAbsent(result, any -> new AtomicInteger()).incrementAndGet();
        }
    };
    private final List<JdbcComputeCache> caches = new ArrayList<>();

    @BeforeEach
    void resetGadget() {
        Gadget.deserialized = false;
    }

    @AfterEach
    void closeCaches() {
        caches.forEach(JdbcComputeCache::close);
    }

    @Test
    void plantedObjectOfAClassNotAllowedShouldNeverBeDeserializedAndTheCallShouldRecompute() throws Exception {
        JdbcComputeCache cache = cache(JdkValueSerializer.withJdkTypes(getClass().getClassLoader(), List.of()));
        plant(KEY, jdkSerialized(new Gadget()));

        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "fresh")).isEqualTo("fresh");

        assertThat(Gadget.deserialized).as("the gadget's readObject ran").isFalse();
        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "again")).as("the fresh value replaced it").isEqualTo("fresh");
        assertThat(count(ComputeResult.UNREADABLE)).isEqualTo(1);
        assertThat(count(ComputeResult.COMPUTED)).isEqualTo(1);
    }

    @Test
    void garbageBytesShouldBeAMissEveryTimeTheyAreFoundButNeverAFailure() throws SQLException {
        JdbcComputeCache cache = cache(JdkValueSerializer.withJdkTypes(getClass().getClassLoader(), List.of()));
        AtomicInteger computed = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            plant(KEY, "not a serialized object".getBytes(StandardCharsets.UTF_8));
            assertThat(cache.fetchOrCompute(KEY, TTL, () -> "v" + computed.incrementAndGet())).isEqualTo("v" + (i + 1));
        }
        assertThat(count(ComputeResult.UNREADABLE)).isEqualTo(3);
        assertThat(count(ComputeResult.FAILED)).isZero();
    }

    @Test
    void valueOfAnAllowedClassShouldRoundTripBetweenNodes() {
        JdkValueSerializer serializer = JdkValueSerializer.withJdkTypes(getClass().getClassLoader(),
                List.of("dev.locks.jdbc.JdbcComputeValuesTest$Quote"));
        JdbcComputeCache a = cache(serializer);
        JdbcComputeCache b = JdbcComputeCache.builder(postgres.server().dataSource()).serializer(serializer).build();
        caches.add(b);
        Quote quote = new Quote("ACME", new BigDecimal("12.50"));
        a.fetchOrCompute(KEY, TTL, () -> quote);

        assertThat(b.fetchOrCompute(KEY, TTL, () -> new Quote("other", BigDecimal.ONE))).isEqualTo(quote)
                .isNotSameAs(quote);
        assertThat(count(ComputeResult.UNREADABLE)).isZero();
    }

    @Test
    void aValueOfAClassThatCouldNotBeReadBackShouldFailItsCallerAndStoreNothing() throws SQLException {
        JdbcComputeCache cache = cache(JdkValueSerializer.withJdkTypes(getClass().getClassLoader(), List.of()));

        assertThatThrownBy(() -> cache.fetchOrCompute(KEY, TTL, () -> new Quote("ACME", BigDecimal.TEN)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Quote.class.getName());

        assertThat(postgres.server().queryLong("SELECT count(*) FROM locks_value WHERE value_key = '" + KEY + "'"))
                .isZero();
        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "next")).as("the next call computes again").isEqualTo("next");
    }

    /**
     * SPEC 4: the same exception type and message as on Redis (one serializer in core): a value that is not
     * {@code Serializable} says so, though its class is allowed, and nothing is stored.
     */
    @Test
    void aValueThatIsNotSerializableShouldFailItsCallerSayingSoAndStoreNothing() throws SQLException {
        JdbcComputeCache cache = cache(JdkValueSerializer.withJdkTypes(getClass().getClassLoader(),
                List.of("dev.locks.jdbc.**")));

        assertThatThrownBy(() -> cache.fetchOrCompute(KEY, TTL, () -> new Unserializable(7)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Unserializable.class.getName() + " does not implement java.io.Serializable")
                .hasMessageNotContaining("allowed");
        assertThatThrownBy(() -> cache.fetchOrCompute(KEY, TTL, () -> new Object()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Object does not implement java.io.Serializable");

        assertThat(postgres.server().queryLong("SELECT count(*) FROM locks_value WHERE value_key = '" + KEY + "'"))
                .isZero();
        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "next")).as("the next call computes again").isEqualTo("next");
    }

    @Test
    void theDefaultSerializerShouldNameItsSettingWhenAClassIsNotAllowed() {
        JdbcComputeCache cache = JdbcComputeCache.builder(postgres.dataSource()).initializeSchema(true).build();
        caches.add(cache);

        assertThatThrownBy(() -> cache.fetchOrCompute(KEY, TTL, () -> new Quote("ACME", BigDecimal.TEN)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Quote.class.getName() + " is not in locks.jdbc.serialization.allowed-classes");
    }

    /** Allowed, but not {@code Serializable}. */
    record Unserializable(int n) {
    }

    @Test
    void aValueThatCannotBeWrittenShouldFailTheMissOnTheOtherNodeToo() throws InterruptedException {
        JdkValueSerializer jdkOnly = JdkValueSerializer.withJdkTypes(getClass().getClassLoader(), List.of());
        JdbcComputeCache a = cache(jdkOnly);
        JdbcComputeCache b = JdbcComputeCache.builder(postgres.server().dataSource()).serializer(jdkOnly).build();
        caches.add(b);
        await().atMost(Duration.ofSeconds(30)).until(() -> a.store().listenerConfirmations() > 0
                && b.store().listenerConfirmations() > 0);
        ComputeCacheCallers callers = new ComputeCacheCallers();
        try {
            ComputeCacheStall<Object> computation = ComputeCacheStall.returning(new Quote("ACME", BigDecimal.TEN));
            Future<Object> computer = callers.start("alice", () -> a.fetchOrCompute(KEY, TTL, computation));
            computation.awaitEntered();
            Future<Object> otherNode = callers.start("bob", () -> b.fetchOrCompute(KEY, TTL, () -> "bob"));
            ComputeCacheCallers.awaitWaiters(b, KEY, 1);

            computation.release();

            assertThat(ComputeCacheCallers.failure(computer)).isInstanceOf(IllegalArgumentException.class);
            assertThat(ComputeCacheCallers.failure(otherNode)).isInstanceOfSatisfying(ComputeFailedException.class,
                    failed -> assertThat(failed.originalClassName()).isEqualTo(IllegalArgumentException.class.getName()));
        } finally {
            callers.close();
        }
    }

    private JdbcComputeCache cache(JdkValueSerializer serializer) {
        JdbcComputeCache cache = JdbcComputeCache.builder(postgres.dataSource()).initializeSchema(true)
                .serializer(serializer).observer(observer).build();
        caches.add(cache);
        return cache;
    }

    private int count(ComputeResult result) {
        AtomicInteger counted = outcomes.get(result);
        return counted == null ? 0 : counted.get();
    }

    private static void plant(String key, byte[] bytes) throws SQLException {
        try (Connection connection = postgres.server().connect(); PreparedStatement statement = connection.prepareStatement(
                "INSERT INTO locks_value VALUES (?, ?, clock_timestamp(), NULL)"
                        + " ON CONFLICT (value_key) DO UPDATE SET value = excluded.value")) {
            statement.setString(1, key);
            statement.setBytes(2, bytes);
            statement.executeUpdate();
        }
    }

    private static byte[] jdkSerialized(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }
}
