package dev.locks.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeCache;
import dev.locks.local.LocalComputeCache;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.LocksCacheAutoConfiguration;
import dev.locks.spring.actuate.LocksMetricsAutoConfiguration;
import dev.locks.spring.actuate.LocksObservationAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.cache.autoconfigure.metrics.CacheMetricsAutoConfiguration;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.transaction.TransactionAwareCacheDecorator;
import org.springframework.cache.transaction.TransactionAwareCacheManagerProxy;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;

/**
 * {@code locks.cache.single-flight} on the in-memory backend (one node): the misses of a Caffeine cache go through
 * the local compute cache, with its meters and Observations, and leave nothing in it.
 */
class SingleFlightCacheLocalTests {

    private static final int CALLERS = 50;

    private final Callers callers = new Callers();

    private final Recorder recorder = new Recorder();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, LocksCacheAutoConfiguration.class,
                    CacheAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, LocksMetricsAutoConfiguration.class,
                    LocksObservationAutoConfiguration.class))
            .withUserConfiguration(SingleFlightCacheRedisTests.Caching.class)
            .withPropertyValues("locks.cache.single-flight=true", "spring.cache.type=caffeine",
                    "spring.cache.cache-names=quotes,prices")
            .withBean(ObservationRegistry.class, () -> {
                ObservationRegistry observations = ObservationRegistry.create();
                observations.observationConfig().observationHandler(recorder);
                return observations;
            })
            .withBean(Quotes.class, () -> new Quotes(callers));

    @Test
    void concurrentMissesShouldLoadOnceAndBeMeteredAndObservedUnderTheCacheName() {
        runner.run(context -> {
            assertThat(context.getBean(ComputeCache.class)).isInstanceOf(LocalComputeCache.class);
            Quotes quotes = context.getBean(Quotes.class);

            List<Object> results = callers.runTogether(calls(() -> quotes.quote("ACME")));

            assertThat(quotes.loads()).isOne();
            assertThat(new HashSet<>(results)).hasSize(1).allMatch(quote -> quote.toString().startsWith("ACME:"));
            assertThat(quotes.quote("ACME")).isEqualTo(results.get(0)); // a hit of the Caffeine cache
            assertThat(quotes.loads()).isOne();
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("locks.compute").tags("name", "quotes", "outcome", "computed", "backend", "local")
                    .timer().count()).isOne();
            assertThat(meters.get("locks.compute").tags("name", "quotes", "outcome", "waited").timer().count())
                    .isEqualTo(CALLERS - 1);
            assertThat(recorder.stopped).hasSize(CALLERS).allSatisfy(observation -> {
                assertThat(observation.getName()).isEqualTo("locks.compute");
                assertThat(observation.getLowCardinalityKeyValue("name").getValue()).isEqualTo("quotes");
            });
            // the compute cache carried the value and keeps it for a moment only, which an eviction ends at once
            assertThat(context.getBean(ComputeCache.class).computations()).isEmpty();
            context.getBean(CacheManager.class).getCache("quotes").evict("ACME");
            assertThat(quotes.quote("ACME")).isNotEqualTo(results.get(0));
            assertThat(quotes.loads()).isEqualTo(2);
        });
    }

    @Test
    void loaderExceptionShouldReachEveryCallerAndStoreNothing() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);

            List<Object> outcomes = callers.runTogether(calls(() -> quotes.failing("ACME")));

            assertThat(quotes.loads()).isOne();
            assertThat(outcomes).hasSize(CALLERS).allSatisfy(outcome -> assertThat((Throwable) outcome)
                    .isInstanceOf(Quotes.QuoteUnavailableException.class).hasMessage("no quote for ACME"));
            assertThat(context.getBean(CacheManager.class).getCache("quotes").get("failing-ACME")).isNull();
            assertThat(new HashSet<>(outcomes)).as("the loader's exception object itself").hasSize(1);
        });
    }

    @Test
    void wrappedManagerShouldStayInjectableByItsOwnType() {
        runner.run(context -> {
            CaffeineCacheManager manager = context.getBean(CaffeineCacheManager.class);
            assertThat(manager).isInstanceOf(SingleFlightCacheManagers.Wrapped.class);
            assertThat(manager.getCacheNames()).containsExactlyInAnyOrder("quotes", "prices");
            assertThat(manager.getCache("quotes")).isInstanceOf(SingleFlightCache.class)
                    .isSameAs(manager.getCache("quotes"));
        });
    }

    @Test
    void withoutSpringBootsCacheModuleAManagerBeanShouldStillBeWrapped() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, LocksCacheAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.cache"))
                .withUserConfiguration(SingleFlightCacheRedisTests.Caching.class)
                .withPropertyValues("locks.cache.single-flight=true")
                .withBean(CacheManager.class, () -> new ConcurrentMapCacheManager("quotes"))
                .withBean(Quotes.class, () -> new Quotes(callers))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(SingleFlightCacheMeterBinderProvider.class);
                    assertThat(context.getBean(CacheManager.class).getCache("quotes"))
                            .isInstanceOf(SingleFlightCache.class);
                    Quotes quotes = context.getBean(Quotes.class);

                    List<Object> results = callers.runTogether(calls(() -> quotes.quote("ACME")));

                    assertThat(new HashSet<>(results)).hasSize(1);
                    assertThat(quotes.loads()).isOne();
                });
    }

    @Test
    void transactionAwareCachesShouldKeepTheirMetrics() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, LocksCacheAutoConfiguration.class,
                        CacheMetricsAutoConfiguration.class))
                .withUserConfiguration(SingleFlightCacheRedisTests.Caching.class)
                .withPropertyValues("locks.cache.single-flight=true")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean("cacheManager", CacheManager.class,
                        () -> new TransactionAwareCacheManagerProxy(new CaffeineCacheManager("quotes")))
                .run(context -> {
                    Cache quotes = context.getBean(CacheManager.class).getCache("quotes");
                    assertThat(quotes).isInstanceOf(SingleFlightCache.class);
                    assertThat(((SingleFlightCache) quotes).getTargetCache())
                            .isInstanceOf(TransactionAwareCacheDecorator.class);
                    assertThat(context.getBean(MeterRegistry.class).find("cache.size").tag("name", "quotes").meters())
                            .isNotEmpty();
                });
    }

    private static List<Callable<?>> calls(Callable<?> call) {
        List<Callable<?>> calls = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            calls.add(call);
        }
        return calls;
    }

    /** Keeps the context of every observation that stopped. */
    static final class Recorder implements ObservationHandler<Observation.Context> {

        final ConcurrentLinkedQueue<Observation.Context> stopped = new ConcurrentLinkedQueue<>();

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }
}
