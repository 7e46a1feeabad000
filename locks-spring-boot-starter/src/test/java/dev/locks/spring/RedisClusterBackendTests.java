package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeCache;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.redis.RedisLockRegistry;
import dev.locks.redis.test.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Applications on a Redis Cluster of 3 masters through Spring Boot's own Redis auto-configuration in cluster
 * mode ({@code spring.data.redis.cluster.nodes}), no hash tag in the prefix: two nodes' multi-key locks over
 * keys of every shard exclude each other, and one computer runs per missing key across them.
 */
class RedisClusterBackendTests {

    @RegisterExtension
    static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);

    private ApplicationContextRunner node() {
        String nodes = Arrays.stream(redis.cluster().ports()).mapToObj(port -> "127.0.0.1:" + port)
                .collect(Collectors.joining(","));
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.cluster.nodes=" + nodes, "spring.data.redis.timeout=2s",
                        "spring.data.redis.connect-timeout=1s", "locks.retries=infinity", "locks.wait-time=30s");
    }

    @Test
    void twoNodesShouldExcludeEachOtherOnKeysOfEveryShardAndComputeOnce() {
        long[] counters = new long[6];
        long[] expected = new long[6];
        AtomicInteger computed = new AtomicInteger();
        node().run(first -> node().run(second -> {
            assertThat(first.getBean(LockRegistry.class)).isInstanceOf(RedisLockRegistry.class);
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                List<Future<long[]>> futures = new ArrayList<>();
                for (LockRegistry registry : List.of(first.getBean(LockRegistry.class),
                        second.getBean(LockRegistry.class))) {
                    for (int t = 0; t < 3; t++) {
                        futures.add(pool.submit(() -> {
                            long[] mine = new long[counters.length];
                            ThreadLocalRandom random = ThreadLocalRandom.current();
                            for (int i = 0; i < 100; i++) {
                                int[] picked = random.ints(0, counters.length).distinct().limit(1 + random.nextInt(3))
                                        .toArray();
                                try (Lease lease = registry.acquire(
                                        Arrays.stream(picked).mapToObj(k -> "account:" + k).toList())) {
                                    for (int k : picked) {
                                        counters[k]++;
                                        mine[k]++;
                                    }
                                }
                            }
                            return mine;
                        }));
                    }
                }
                for (Future<long[]> future : futures) {
                    long[] mine = future.get(2, TimeUnit.MINUTES);
                    for (int k = 0; k < counters.length; k++) {
                        expected[k] += mine[k];
                    }
                }
                List<Future<Object>> computes = new ArrayList<>();
                for (ComputeCache cache : List.of(first.getBean(ComputeCache.class), second.getBean(ComputeCache.class))) {
                    for (int t = 0; t < 3; t++) {
                        computes.add(pool.submit(() -> cache.fetchOrCompute("report", Duration.ofMinutes(1), () -> {
                            computed.incrementAndGet();
                            return "done";
                        })));
                    }
                }
                for (Future<Object> compute : computes) {
                    assertThat(compute.get(1, TimeUnit.MINUTES)).isEqualTo("done");
                }
            } finally {
                pool.shutdownNow();
            }
        }));
        assertThat(counters).containsExactly(expected);
        assertThat(Arrays.stream(expected).sum()).isGreaterThanOrEqualTo(600);
        assertThat(computed).hasValue(1);
        assertThat(Arrays.stream(new int[] {0, 1, 2, 3, 4, 5})
                .map(k -> redis.cluster().masterPortOf(redis.cluster().keySlot("locks:lock:account:" + k)))
                .distinct().count()).as("the keys' masters").isGreaterThan(1);
    }
}
