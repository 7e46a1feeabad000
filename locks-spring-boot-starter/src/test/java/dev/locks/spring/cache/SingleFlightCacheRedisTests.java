package dev.locks.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeCache;
import dev.locks.ComputeFailedException;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.LocksCacheAutoConfiguration;
import dev.locks.redis.test.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.actuate.endpoint.CachesEndpoint;
import org.springframework.boot.cache.actuate.endpoint.CachesEndpoint.CacheDescriptor;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.CacheManagerCustomizer;
import org.springframework.boot.cache.autoconfigure.CachesEndpointAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.caffeine.CaffeineCache;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.cache.support.SimpleCacheManager;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.RedisCache;
import org.springframework.data.redis.cache.RedisCacheManager;

/**
 * {@code @Cacheable(sync = true)} on two nodes, each an application context on one redis-server of this class's own,
 * with Spring Boot's cache auto-configuration: a Caffeine cache on each node, or one Redis cache that both share.
 */
class SingleFlightCacheRedisTests {

    private static final int CALLERS_PER_NODE = 50;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final Callers callers = new Callers();

    private ApplicationContextRunner node(String cacheType, String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class,
                        LocksCacheAutoConfiguration.class, CacheAutoConfiguration.class))
                .withUserConfiguration(Caching.class)
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "spring.cache.type=" + cacheType, "spring.cache.cache-names=quotes,prices")
                .withPropertyValues(properties)
                .withBean(Quotes.class, () -> new Quotes(callers));
    }

    private ApplicationContextRunner singleFlight(String cacheType, String... properties) {
        return node(cacheType, "locks.cache.single-flight=true").withPropertyValues(properties);
    }

    @Test
    void perNodeCaffeineCachesShouldLoadOnceForEveryCallerOfBothNodes() {
        singleFlight("caffeine").run(first -> singleFlight("caffeine").run(second -> {
            List<Object> quotes = callers.runTogether(calls(first, second, node -> node.quote("ACME")));

            assertThat(loads(first) + loads(second)).isEqualTo(1);
            assertThat(new HashSet<>(quotes)).hasSize(1).allMatch(quote -> quote.toString().startsWith("ACME:"));
            for (AssertableApplicationContext node : List.of(first, second)) { // each node's own cache stores it
                Cache cache = node.getBean(CacheManager.class).getCache("quotes");
                assertThat(cache).isInstanceOf(SingleFlightCache.class);
                assertThat(((SingleFlightCache) cache).getTargetCache()).isInstanceOf(CaffeineCache.class);
                assertThat(cache.get("ACME", String.class)).isEqualTo(quotes.get(0));
                assertThat(node.getBean(Quotes.class).quote("ACME")).isEqualTo(quotes.get(0));
            }
            assertThat(loads(first) + loads(second)).isEqualTo(1);
        }));
    }

    /**
     * A caller of the node that did not load, arriving after the value reached that node but before the node's
     * cache stored it (held there by a {@link GatedCache}), waits for that store: the miss across nodes is over, and
     * a miss of its own would load again.
     */
    @Test
    void callerArrivingBeforeItsNodeStoredTheValueShouldNotLoadAgain() {
        GatedCache gated = new GatedCache("quotes");
        singleFlight("caffeine").run(first -> singleFlight("caffeine")
                .withBean("cacheManager", CacheManager.class, () -> {
                    SimpleCacheManager manager = new SimpleCacheManager();
                    manager.setCaches(List.of(gated));
                    return manager;
                }).run(second -> {
            Cache loading = first.getBean(CacheManager.class).getCache("quotes");
            Cache waiting = second.getBean(CacheManager.class).getCache("quotes");
            AtomicInteger loads = new AtomicInteger();
            CountDownLatch loaderStarted = new CountDownLatch(1);
            CountDownLatch loaderMayEnd = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                Future<String> loaded = pool.submit(() -> loading.get("ACME", () -> {
                    loads.incrementAndGet();
                    loaderStarted.countDown();
                    loaderMayEnd.await(20, TimeUnit.SECONDS);
                    return "loaded";
                }));
                assertThat(loaderStarted.await(20, TimeUnit.SECONDS)).isTrue();
                Future<String> waited = pool.submit(() -> waiting.get("ACME", () -> "loaded again " + loads.incrementAndGet()));
                await(() -> !second.getBean(ComputeCache.class).computations().isEmpty()); // it waits for the load
                loaderMayEnd.countDown();
                assertThat(gated.awaitArrival()).as("the value reached the second node").isTrue();

                Future<String> late = pool.submit(() -> waiting.get("ACME", () -> "loaded again " + loads.incrementAndGet()));
                await(() -> late.isDone() || loads.get() > 1, 2_000); // a new miss would load by then
                gated.open();

                assertThat(List.of(loaded.get(20, TimeUnit.SECONDS), waited.get(20, TimeUnit.SECONDS),
                        late.get(20, TimeUnit.SECONDS))).containsOnly("loaded");
                assertThat(loads).hasValue(1);
                assertThat(gated.get("ACME", String.class)).isEqualTo("loaded");
            }
            finally {
                pool.shutdownNow();
            }
        }));
    }

    /**
     * A node whose first caller comes only after the miss of another node ended gets the loaded value from the compute
     * cache, for {@link CacheFlights#GRACE}; after it, the compute cache has no copy left and a miss loads again.
     */
    @Test
    void nodeWhoseCallerComesJustAfterTheMissShouldGetTheValueWithinTheGraceOnly() {
        singleFlight("caffeine").run(first -> singleFlight("caffeine").run(second -> {
            String loaded = first.getBean(Quotes.class).quote("ACME");
            assertThat(second.getBean(Quotes.class).quote("ACME")).isEqualTo(loaded);
            assertThat(loads(first) + loads(second)).isOne();

            Thread.sleep(CacheFlights.GRACE.toMillis() + 500);
            // the second node's Caffeine drops the value, as its own TTL or size bound would: nothing evicts it through
            // the wrapper, so only the grace ended the compute cache's copy
            ((SingleFlightCache) second.getBean(CacheManager.class).getCache("quotes")).getTargetCache().evict("ACME");
            assertThat(second.getBean(Quotes.class).quote("ACME")).isNotEqualTo(loaded);
            assertThat(loads(second)).isOne();
        }));
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        await(condition, 20_000);
        assertThat(condition.getAsBoolean()).isTrue();
    }

    private static void await(BooleanSupplier condition, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    @Test
    void withoutThePropertyEachNodeShouldLoadOnItsOwn() {
        node("caffeine").run(first -> node("caffeine").run(second -> {
            List<Object> quotes = callers.runTogether(calls(first, second, node -> node.quote("ACME")));

            assertThat(loads(first)).isGreaterThanOrEqualTo(1);
            assertThat(loads(second)).isGreaterThanOrEqualTo(1);
            assertThat(new HashSet<>(quotes)).hasSizeGreaterThanOrEqualTo(2);
            CacheManager manager = first.getBean(CacheManager.class);
            assertThat(manager).isExactlyInstanceOf(CaffeineCacheManager.class);
            assertThat(manager.getCache("quotes")).isInstanceOf(CaffeineCache.class);
            assertThat(first).doesNotHaveBean(SingleFlightCacheManagers.class);
        }));
    }

    @Test
    void sharedRedisCacheShouldLoadOnceForEveryCallerOfBothNodes() {
        singleFlight("redis").run(first -> singleFlight("redis").run(second -> {
            List<Object> quotes = callers.runTogether(calls(first, second, node -> node.quote("ACME")));

            assertThat(loads(first) + loads(second)).isEqualTo(1);
            assertThat(new HashSet<>(quotes)).hasSize(1);
            RedisCacheManager manager = first.getBean(RedisCacheManager.class); // still injectable by its own type
            assertThat(manager.getCache("quotes")).isInstanceOf(SingleFlightCache.class);
            assertThat(((SingleFlightCache) manager.getCache("quotes")).getTargetCache()).isInstanceOf(RedisCache.class);
            assertThat(second.getBean(CacheManager.class).getCache("quotes").get("ACME", String.class))
                    .isEqualTo(quotes.get(0));
        }));
    }

    @Test
    void loaderExceptionShouldReachCallersOnBothNodesAndStoreNothing() {
        singleFlight("redis").run(first -> singleFlight("redis").run(second -> {
            List<Object> outcomes = callers.runTogether(calls(first, second, node -> node.failing("ACME")));

            assertThat(loads(first) + loads(second)).isEqualTo(1);
            String failure = Quotes.QuoteUnavailableException.class.getName();
            assertThat(outcomes).allSatisfy(outcome -> {
                assertThat(outcome).isInstanceOf(RuntimeException.class);
                String thrown = outcome instanceof ComputeFailedException other ? other.originalClassName()
                        : outcome.getClass().getName();
                assertThat(thrown).isEqualTo(failure);
            });
            // the loader's own node gets its exception, the other node the exception's class and message
            assertThat(outcomes).hasAtLeastOneElementOfType(Quotes.QuoteUnavailableException.class)
                    .hasAtLeastOneElementOfType(ComputeFailedException.class);
            for (AssertableApplicationContext node : List.of(first, second)) {
                assertThat(node.getBean(CacheManager.class).getCache("quotes").get("failing-ACME")).isNull();
            }
            assertThat(first.getBean(Quotes.class).quote("ACME")).startsWith("ACME:"); // nothing is stuck
        }));
    }

    @Test
    void valueTheBackendCannotCarryShouldFailEveryCallerNamingItsClassAndStoreNothing() {
        singleFlight("caffeine").run(first -> singleFlight("caffeine").run(second -> {
            List<Object> outcomes = callers.runTogether(calls(first, second, node -> node.plain("ACME")));

            assertThat(loads(first) + loads(second)).isEqualTo(1);
            assertThat(outcomes).allSatisfy(outcome -> {
                String thrown = outcome instanceof ComputeFailedException other ? other.originalClassName()
                        : outcome.getClass().getName();
                assertThat(thrown).isEqualTo(IllegalArgumentException.class.getName());
                assertThat(((Exception) outcome).getMessage()).contains(Quotes.PlainQuote.class.getName())
                        .contains("java.io.Serializable");
            });
            for (AssertableApplicationContext node : List.of(first, second)) {
                assertThat(node.getBean(CacheManager.class).getCache("quotes").get("plain-ACME")).isNull();
            }
        }));
    }

    @Test
    void cacheNamesShouldLeaveOtherCachesAlone() {
        singleFlight("caffeine", "locks.cache.cache-names=quotes")
                .run(first -> singleFlight("caffeine", "locks.cache.cache-names=quotes").run(second -> {
            assertThat(first.getBean(CacheManager.class).getCache("prices")).isInstanceOf(CaffeineCache.class);
            assertThat(first.getBean(CacheManager.class).getCache("quotes")).isInstanceOf(SingleFlightCache.class);

            callers.runTogether(calls(first, second, node -> node.price("ACME")));

            assertThat(loads(first)).isGreaterThanOrEqualTo(1);
            assertThat(loads(second)).isGreaterThanOrEqualTo(1);
        }));
    }

    @Test
    void evictionShouldBeFollowedByOneLoad() {
        singleFlight("redis").run(first -> singleFlight("redis").run(second -> {
            String before = first.getBean(Quotes.class).quote("ACME");
            assertThat(second.getBean(Quotes.class).quote("ACME")).isEqualTo(before);

            second.getBean(Quotes.class).evict("ACME");
            List<Object> quotes = callers.runTogether(calls(first, second, node -> node.quote("ACME")));

            assertThat(loads(first) + loads(second)).isEqualTo(2);
            assertThat(new HashSet<>(quotes)).hasSize(1).doesNotContain(before);
        }));
    }

    @Test
    void asynchronousMethodsShouldLoadOnceForEveryCallerOfBothNodes() {
        String[] async = {"spring.cache.caffeine.spec=maximumSize=100"};
        singleFlight("caffeine", async).withBean(CacheManagerCustomizer.class, Caching::asyncCaffeine).run(
                first -> singleFlight("caffeine", async).withBean(CacheManagerCustomizer.class, Caching::asyncCaffeine)
                        .run(second -> {
            List<Object> quotes = callers.runTogether(calls(first, second, node -> node.quoteLater("ACME").join()));

            assertThat(loads(first) + loads(second)).isEqualTo(1);
            assertThat(new HashSet<>(quotes)).hasSize(1).allMatch(quote -> quote.toString().startsWith("ACME:"));
            assertThat(second.getBean(Quotes.class).quoteLater("ACME").join()).isEqualTo(quotes.get(0));
        }));
    }

    @Test
    void asynchronousLoaderExceptionShouldReachCallersOnBothNodesAndStoreNothing() {
        String[] async = {"spring.cache.caffeine.spec=maximumSize=100"};
        singleFlight("caffeine", async).withBean(CacheManagerCustomizer.class, Caching::asyncCaffeine).run(
                first -> singleFlight("caffeine", async).withBean(CacheManagerCustomizer.class, Caching::asyncCaffeine)
                        .run(second -> {
            List<Object> outcomes = callers.runTogether(calls(first, second, node -> node.failingLater("ACME").join()));

            assertThat(loads(first) + loads(second)).isEqualTo(1);
            String failure = Quotes.QuoteUnavailableException.class.getName();
            assertThat(outcomes).allSatisfy(outcome -> {
                assertThat(outcome).isInstanceOf(CompletionException.class);
                Throwable cause = ((Throwable) outcome).getCause();
                assertThat(cause instanceof ComputeFailedException other ? other.originalClassName()
                        : cause.getClass().getName()).isEqualTo(failure);
            });
            for (AssertableApplicationContext node : List.of(first, second)) {
                assertThat(node.getBean(CacheManager.class).getCache("quotes").get("failing-later-ACME")).isNull();
            }
        }));
    }

    @Test
    void cachesEndpointAndCacheMetricsShouldStillListTheCaches() {
        for (String type : List.of("caffeine", "redis")) {
            singleFlight(type, "management.endpoints.web.exposure.include=caches",
                    "spring.cache.caffeine.spec=recordStats", "spring.cache.redis.enable-statistics=true")
                    .withConfiguration(AutoConfigurations.of(CachesEndpointAutoConfiguration.class,
                            CacheMetricsAutoConfiguration.class))
                    .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                    .run(node -> {
                node.getBean(Quotes.class).quote("ACME");
                assertThat(node.getBean(CacheManager.class).getCache("quotes")).isInstanceOf(SingleFlightCache.class);

                CacheDescriptor quotes = node.getBean(CachesEndpoint.class).caches().getCacheManagers()
                        .get("cacheManager").getCaches().get("quotes");
                assertThat(quotes).as(type).isNotNull();
                assertThat(quotes.getTarget()).as(type).isEqualTo(((SingleFlightCache) node.getBean(CacheManager.class)
                        .getCache("quotes")).getTargetCache().getNativeCache().getClass().getName());
                assertThat(node.getBean(CachesEndpoint.class).caches().getCacheManagers().get("cacheManager")
                        .getCaches()).as(type).containsKeys("quotes", "prices");

                MeterRegistry meters = node.getBean(MeterRegistry.class);
                for (String cache : List.of("quotes", "prices")) {
                    assertThat(meters.find("cache.gets").tag("name", cache).tag("cache.manager", "cacheManager").meters())
                            .as(type + " " + cache).isNotEmpty();
                }
            });
        }
    }

    private static int loads(AssertableApplicationContext node) {
        return node.getBean(Quotes.class).loads();
    }

    /** {@value #CALLERS_PER_NODE} calls of {@code call} on each node. */
    private static List<Callable<?>> calls(AssertableApplicationContext first, AssertableApplicationContext second,
            QuotesCall call) {
        List<Callable<?>> calls = new ArrayList<>();
        for (AssertableApplicationContext node : List.of(first, second)) {
            Quotes quotes = node.getBean(Quotes.class);
            for (int i = 0; i < CALLERS_PER_NODE; i++) {
                calls.add(() -> call.call(quotes));
            }
        }
        return calls;
    }

    @FunctionalInterface
    interface QuotesCall {
        Object call(Quotes quotes) throws Exception;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class Caching {

        static CacheManagerCustomizer<CaffeineCacheManager> asyncCaffeine() {
            return manager -> manager.setAsyncCacheMode(true);
        }
    }
}
