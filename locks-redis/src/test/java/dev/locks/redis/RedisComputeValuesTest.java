package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.redis.test.RedisServerExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * What the default serializer lets in (SPEC 8) and what becomes of a stored value that cannot be read (SPEC 4):
 * values planted in Redis by someone else, corrupt bytes, classes renamed, graphs too deep.
 */
class RedisComputeValuesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration TTL = Duration.ofMinutes(1);
    private static final String KEY = "quotes:ACME";

    private final Map<ComputeResult, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final LocksObserver observer = new LocksObserver() {
        @Override
        public void onCompute(ComputeResult result, long nanos) {
            outcomes.computeIfAbsent(result, any -> new AtomicInteger()).incrementAndGet();
        }
    };
    private final List<RedisComputeCache> caches = new ArrayList<>();

    @BeforeEach
    void resetGadget() {
        Gadget.deserialized = false;
    }

    @AfterEach
    void closeCaches() {
        caches.forEach(RedisComputeCache::close);
    }

    @Test
    void plantedObjectOfAClassNotAllowedShouldNeverBeDeserializedAndTheCallShouldRecompute() throws IOException {
        RedisComputeCache cache = cache(AllowListJdkSerializer.withJdkTypes(getClass().getClassLoader(), List.of()));
        plant(KEY, jdkSerialized(new Gadget()));

        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "fresh")).isEqualTo("fresh");

        assertThat(Gadget.deserialized).as("the gadget's readObject ran").isFalse();
        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "again")).as("the fresh value replaced it").isEqualTo("fresh");
        assertThat(count(ComputeResult.UNREADABLE)).isEqualTo(1);
        assertThat(count(ComputeResult.COMPUTED)).isEqualTo(1);
    }

    @Test
    void garbageBytesShouldBeAMissEveryTimeTheyAreFoundButNeverAFailure() {
        RedisComputeCache cache = cache(AllowListJdkSerializer.withJdkTypes(getClass().getClassLoader(), List.of()));
        AtomicInteger computed = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            plant(KEY, "not a serialized object".getBytes(StandardCharsets.UTF_8));
            assertThat(cache.fetchOrCompute(KEY, TTL, () -> "v" + computed.incrementAndGet())).isEqualTo("v" + (i + 1));
        }
        assertThat(count(ComputeResult.UNREADABLE)).isEqualTo(3);
        assertThat(count(ComputeResult.FAILED)).isZero();
    }

    @Test
    void valueOfARenamedClassShouldBeRemovedAndRecomputedOnce() throws IOException {
        RedisComputeCache cache = cache(AllowListJdkSerializer.withJdkTypes(getClass().getClassLoader(),
                List.of("dev.locks.redis.*")));
        byte[] renamed = replace(jdkSerialized(new Quote("ACME", new BigDecimal("12.5"), Instant.EPOCH)),
                Quote.class.getName(), Quote.class.getName().replace("Quote", "Qu0te"));
        plant(KEY, renamed);
        AtomicInteger computed = new AtomicInteger();

        for (int i = 0; i < 3; i++) {
            assertThat(cache.fetchOrCompute(KEY, TTL, () -> {
                computed.incrementAndGet();
                return new Quote("ACME", BigDecimal.TEN, Instant.EPOCH);
            })).isEqualTo(new Quote("ACME", BigDecimal.TEN, Instant.EPOCH));
        }

        assertThat(computed).as("3 calls, one computation").hasValue(1);
        assertThat(count(ComputeResult.UNREADABLE)).isEqualTo(1);
    }

    @Test
    void valueOfAnAllowedClassShouldRoundTripBetweenNodes() {
        AllowListJdkSerializer serializer = AllowListJdkSerializer.withJdkTypes(getClass().getClassLoader(),
                List.of("dev.locks.redis.RedisComputeValuesTest$Quote"));
        RedisComputeCache a = cache(serializer);
        RedisComputeCache b = RedisComputeCache.builder(redis.newConnectionFactory()).serializer(serializer).build();
        caches.add(b);
        Quote quote = new Quote("ACME", new BigDecimal("12.50"), Instant.parse("2026-12-01T10:15:30Z"));
        a.fetchOrCompute(KEY, TTL, () -> quote);

        assertThat(b.fetchOrCompute(KEY, TTL, () -> new Quote("other", BigDecimal.ONE, Instant.EPOCH)))
                .isEqualTo(quote).isNotSameAs(quote);
        assertThat(b.fetchOrCompute(KEY, TTL, () -> (Object) List.of(1, 2))).isEqualTo(quote);
        assertThat(count(ComputeResult.UNREADABLE)).isZero();
    }

    @Test
    void graphDeeperThanTheLimitShouldBeAMiss() throws IOException {
        RedisComputeCache cache = cache(AllowListJdkSerializer.withJdkTypes(getClass().getClassLoader(), List.of()));
        List<Object> deep = new ArrayList<>();
        List<Object> inner = deep;
        for (int depth = 0; depth < AllowListJdkSerializer.MAX_DEPTH + 5; depth++) {
            List<Object> next = new ArrayList<>();
            inner.add(next);
            inner = next;
        }
        plant(KEY, jdkSerialized((Serializable) deep));

        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "fresh")).isEqualTo("fresh");
        assertThat(count(ComputeResult.UNREADABLE)).isEqualTo(1);
    }

    @Test
    void valueOfAClassThatCouldNotBeReadBackShouldFailItsComputationNamingTheClass() {
        RedisComputeCache cache = cache(AllowListJdkSerializer.withJdkTypes(getClass().getClassLoader(), List.of()));

        assertThatThrownBy(() -> cache.fetchOrCompute(KEY, TTL, () -> new Quote("ACME", BigDecimal.ONE, Instant.EPOCH)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Quote.class.getName() + " is not in locks.redis.serialization.allowed-classes");
        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "a string")).isEqualTo("a string");
    }

    /**
     * SPEC 4: a value whose class does not implement {@code Serializable} fails its computation with an
     * {@link IllegalArgumentException} that says so (its class is allowed: the allow-list is not the reason),
     * and nothing is stored.
     */
    @Test
    void valueThatIsNotSerializableShouldFailItsComputationSayingSo() {
        RedisComputeCache cache = cache(AllowListJdkSerializer.withJdkTypes(getClass().getClassLoader(),
                List.of("dev.locks.redis.**")));

        assertThatThrownBy(() -> cache.fetchOrCompute(KEY, TTL, () -> new Unserializable(42)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Unserializable.class.getName() + " does not implement java.io.Serializable")
                .hasMessageNotContaining("allowed");
        assertThat(redis.server().command("EXISTS", "locks:value:" + KEY)).as("nothing stored").isEqualTo(0L);
        assertThat(cache.fetchOrCompute(KEY, TTL, () -> "a string")).isEqualTo("a string");
    }

    /** Allowed, but not {@code Serializable}. */
    record Unserializable(int n) {
    }

    @Test
    void defaultSerializerShouldAllowOnlyTheJdkValueTypes() {
        RedisComputeCache cache = RedisComputeCache.builder(redis.connectionFactory()).observer(observer).build();
        caches.add(cache);
        plant(KEY, new AllowListJdkSerializer(getClass().getClassLoader(), List.of("dev.locks.redis.**"))
                .serialize(new Gadget()));

        assertThat(cache.fetchOrCompute(KEY, TTL, () -> Map.of("price", new BigDecimal("1.5")))).isEqualTo(
                Map.of("price", new BigDecimal("1.5")));
        assertThat(Gadget.deserialized).isFalse();
        assertThat(cache.fetchOrCompute(KEY, TTL, () -> Map.of())).isEqualTo(Map.of("price", new BigDecimal("1.5")));
    }

    @Test
    void patternsThatAreNotClassPatternsShouldBeRejected() {
        for (String bad : List.of("", " ", "!java.lang.*", "maxdepth=1000", "java.lang.*;!*")) {
            assertThatThrownBy(() -> new AllowListJdkSerializer(getClass().getClassLoader(), List.of(bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pattern");
        }
        assertThatThrownBy(() -> new AllowListJdkSerializer(getClass().getClassLoader(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private RedisComputeCache cache(AllowListJdkSerializer serializer) {
        RedisComputeCache cache = RedisComputeCache.builder(redis.connectionFactory()).serializer(serializer)
                .observer(observer).build();
        caches.add(cache);
        return cache;
    }

    private int count(ComputeResult result) {
        AtomicInteger count = outcomes.get(result);
        return count == null ? 0 : count.get();
    }

    private static void plant(String key, byte[] bytes) {
        try (RedisConnection connection = redis.connectionFactory().getConnection()) {
            connection.stringCommands().set(("locks:value:" + key).getBytes(StandardCharsets.UTF_8), bytes);
        }
    }

    private static byte[] jdkSerialized(Serializable value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private static byte[] replace(byte[] bytes, String from, String to) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        assertThat(text).contains(from);
        return text.replace(from, to).getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A value type of the application. */
    record Quote(String symbol, BigDecimal price, Instant at) implements Serializable {
    }

    /** A harmless gadget: reading it would set the flag. */
    static final class Gadget implements Serializable {

        private static final long serialVersionUID = 1L;
        static volatile boolean deserialized;

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            deserialized = true;
            in.defaultReadObject();
        }
    }
}
