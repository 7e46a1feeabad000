package dev.locks.redis;

import static dev.locks.LocksObserver.ComputeResult.COMPUTED;
import static dev.locks.LocksObserver.ComputeResult.FAILED;
import static dev.locks.LocksObserver.ComputeResult.HIT;
import static dev.locks.LocksObserver.ComputeResult.WAITED;
import static dev.locks.contract.ComputeCacheCallers.awaitWaiters;
import static dev.locks.contract.ComputeCacheCallers.failure;
import static dev.locks.contract.ComputeCacheCallers.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locks.ComputeOptions;
import dev.locks.ComputeOutcome;
import dev.locks.ComputeTicket;
import dev.locks.LocksObserver;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.redis.test.RedisServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;

/** What only the Redis backend does: its builder, key prefix, serializer, observer, tickets and close. */
class RedisComputeCacheTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration TTL = Duration.ofMinutes(1);

    private final ComputeCacheCallers callers = new ComputeCacheCallers();
    private final List<RedisComputeCache> caches = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws InterruptedException {
        callers.close();
        caches.forEach(RedisComputeCache::close);
    }

    private RedisComputeCache cache(RedisComputeCache.Builder builder) {
        RedisComputeCache cache = builder.build();
        caches.add(cache);
        return cache;
    }

    private RedisComputeCache cache() {
        return cache(RedisComputeCache.builder(redis.connectionFactory()));
    }

    @Test
    void defaultsShouldBeThoseOfTheProperties() {
        RedisComputeCache cache = cache();

        assertThat(cache.backend()).isEqualTo("redis");
        assertThat(cache.defaultOptions()).isEqualTo(ComputeOptions.defaults());
        assertThat(cache.fetchOrCompute("k", TTL, () -> "v")).isEqualTo("v");
        assertThat(redis.server().command("EXISTS", "locks:value:k")).as("key prefix locks:").isEqualTo(1L);
        assertThat(redis.server().subscribers("locks:computed")).isEqualTo(1);
    }

    @Test
    void builderShouldRejectInvalidSettingsNamingThem() {
        assertThatThrownBy(() -> RedisComputeCache.builder(null)).hasMessageContaining("connectionFactory");
        RedisComputeCache.Builder builder = RedisComputeCache.builder(redis.connectionFactory());
        assertThatThrownBy(() -> builder.keyPrefix(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> builder.serializer(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("serializer");
        assertThatThrownBy(() -> builder.defaultOptions(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("defaultOptions");
        assertThatThrownBy(() -> builder.clock(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clock");
        assertThatThrownBy(() -> builder.observer(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("observer");
    }

    @Test
    void invalidArgumentsShouldBeRejectedEvenOnAHit() {
        RedisComputeCache cache = cache();
        cache.fetchOrCompute("k", TTL, () -> "v");

        assertThatThrownBy(() -> cache.fetchOrCompute("k", (Duration) null, () -> "v")).hasMessageContaining("ttl");
        assertThatThrownBy(() -> cache.fetchOrCompute("k", TTL, null)).hasMessageContaining("compute");
        assertThatThrownBy(() -> cache.fetchOrCompute("k", (ComputeOptions) null, () -> "v"))
                .hasMessageContaining("options");
        assertThatThrownBy(() -> cache.begin("k", (Duration) null, "hint")).hasMessageContaining("ttl");
        assertThatThrownBy(() -> cache.complete(null, "v", null)).hasMessageContaining("ticket");
        assertThatThrownBy(() -> cache.complete(new ComputeTicket("k", "m/0/c"), "v", Duration.ofSeconds(-1)))
                .hasMessageContaining("ttl");
        assertThatThrownBy(() -> cache.fail(new ComputeTicket("k", "m/0/c"), null)).hasMessageContaining("error");
        assertThat(cache.complete(new ComputeTicket(null, "m/0/c"), "v", null)).isFalse();
        assertThat(cache.complete(new ComputeTicket("k", "m/x/c"), "v", null)).isFalse();
        assertThat(cache.fail(new ComputeTicket("k", null), new IllegalStateException())).isFalse();
    }

    @Test
    void keyPrefixShouldBeAStorageNamespaceOnly() {
        RedisComputeCache tenantA = cache(RedisComputeCache.builder(redis.connectionFactory()).keyPrefix("{a}:"));
        RedisComputeCache tenantB = cache(RedisComputeCache.builder(redis.connectionFactory()).keyPrefix("{b}:"));
        tenantA.begin("k", TTL, null);

        assertThat(tenantA.computations()).singleElement()
                .satisfies(computation -> assertThat(computation.key()).isEqualTo("k"));
        assertThat(tenantB.fetchOrCompute("k", TTL, () -> "b")).as("another namespace: no wait").isEqualTo("b");
        assertThat(redis.server().command("EXISTS", "{b}:value:k")).isEqualTo(1L);
        assertThat(redis.server().command("EXISTS", "{a}:compute:k")).isEqualTo(1L);
        assertThat(redis.server().subscribers("{a}:computed")).isEqualTo(1);
    }

    @Test
    void serializerShouldBeTheApplications() {
        RedisSerializer<Object> text = new RedisSerializer<>() {
            @Override
            public byte[] serialize(Object value) {
                return ("text:" + value).getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public Object deserialize(byte[] bytes) {
                return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8).substring("text:".length());
            }
        };
        RedisComputeCache a = cache(RedisComputeCache.builder(redis.connectionFactory()).serializer(text));
        RedisComputeCache b = cache(RedisComputeCache.builder(redis.newConnectionFactory()).serializer(text));

        assertThat(a.fetchOrCompute("k", TTL, () -> 42)).isEqualTo(42);

        assertThat(redis.server().command("GET", "locks:value:k")).isEqualTo("text:42");
        assertThat(b.fetchOrCompute("k", TTL, () -> (Object) 0)).as("as the serializer reads it").isEqualTo("42");
    }

    @Test
    void valueTheSerializerCannotWriteShouldFailTheMissAndStoreNothing() {
        RedisComputeCache a = cache();
        RedisComputeCache b = cache(RedisComputeCache.builder(redis.newConnectionFactory()));
        ComputeOutcome.Compute turn = (ComputeOutcome.Compute) a.begin("k", TTL, null);
        Future<Object> otherNode = callers.start("bob", () -> b.fetchOrCompute("k", TTL, () -> "bob"));
        awaitWaiters(b, "k", 1);

        assertThatThrownBy(() -> a.complete(turn.ticket(), new Object(), null))
                .isInstanceOf(IllegalArgumentException.class) // SPEC 4: the same type on every backend
                .hasMessageContaining("java.lang.Object does not implement java.io.Serializable");

        assertThat(failure(otherNode)).isInstanceOfSatisfying(dev.locks.ComputeFailedException.class, failed -> {
            assertThat(failed.originalClassName()).isEqualTo(IllegalArgumentException.class.getName());
            assertThat(failed).hasMessageContaining("does not implement java.io.Serializable");
        });
        assertThat(redis.server().command("EXISTS", "locks:value:k")).as("nothing stored").isEqualTo(0L);
        assertThat(a.fetchOrCompute("k", TTL, () -> "v")).isEqualTo("v");
    }

    @Test
    void ticketShouldWorkOnAnyNodeAndInvalidateShouldReachEveryNode() {
        RedisComputeCache a = cache();
        RedisComputeCache b = cache(RedisComputeCache.builder(redis.newConnectionFactory()));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.subscriptionConfirmations() > 0);
        ComputeOutcome.Compute turn = (ComputeOutcome.Compute) a.begin("k", TTL, null);
        Future<ComputeOutcome> sameNode = callers.start("bob", () -> a.begin("k", TTL, null));
        awaitWaiters(a, "k", 1);

        assertThat(b.complete(turn.ticket(), "completed on B", null)).isTrue();

        assertThat(result(sameNode)).isEqualTo(new ComputeOutcome.Value("completed on B"));
        assertThat(a.computations()).isEmpty();
        b.invalidate("k");
        assertThat(a.fetchOrCompute("k", TTL, () -> "again")).isEqualTo("again");
    }

    @Test
    void observerShouldHearHowEachCallEndedOnItsNode() {
        Recorder onA = new Recorder();
        Recorder onB = new Recorder();
        RedisComputeCache a = cache(RedisComputeCache.builder(redis.connectionFactory()).observer(onA));
        RedisComputeCache b = cache(RedisComputeCache.builder(redis.newConnectionFactory()).observer(onB));
        ComputeOutcome.Compute turn = (ComputeOutcome.Compute) a.begin("k", TTL, null);
        Future<Object> waiter = callers.start("bob", () -> b.fetchOrCompute("k", TTL, () -> "bob"));
        awaitWaiters(b, "k", 1);

        a.complete(turn.ticket(), "v", null);
        result(waiter);
        b.fetchOrCompute("k", TTL, () -> "other");
        assertThatThrownBy(() -> a.fetchOrCompute("failing", TTL, () -> {
            throw new IllegalStateException("boom");
        })).hasMessage("boom");

        assertThat(onA.results).containsExactly(COMPUTED, FAILED);
        assertThat(onB.results).containsExactly(WAITED, HIT);
    }

    @Test
    void closedCacheShouldRefuseCallsAndUnsubscribe() {
        RedisComputeCache cache = cache();
        await().atMost(Duration.ofSeconds(10)).until(() -> cache.subscriptionConfirmations() > 0);

        cache.close();

        assertThatThrownBy(() -> cache.fetchOrCompute("k", TTL, () -> "v")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cache.begin("k", TTL, null)).isInstanceOf(IllegalStateException.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.server().subscribers("locks:computed") == 0);
    }

    /** Records compute results in order. */
    private static final class Recorder implements LocksObserver {

        final List<ComputeResult> results = new CopyOnWriteArrayList<>();

        @Override
        public void onCompute(ComputeResult result, long nanos) {
            results.add(result);
        }
    }
}
