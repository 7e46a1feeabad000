package dev.locks.benchmarks.spring;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.LocksCacheAutoConfiguration;
import java.time.Duration;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The Spring Boot context the annotation benchmarks run in: non-web, no actuator, the starter's
 * auto-configuration on the local backend with its defaults, and Spring's caching on a Caffeine cache bounded
 * and expiring as the starter's value store is (10,000 entries, 5 minutes; {@value #CACHE_EXPIRY} changes the
 * expiry).
 */
public final class BenchmarkContext {

    /** The one Spring cache. */
    public static final String CACHE = "values";

    /** The Spring cache's expiry after write, a duration ({@code 5m} unless set). */
    public static final String CACHE_EXPIRY = "benchmark.cache.expire-after-write";

    /** How long {@link SlowQuotes} computes. */
    public static final long COMPUTE_MILLIS = 50;

    private BenchmarkContext() {
    }

    public static ConfigurableApplicationContext start() {
        return start(new String[0]);
    }

    /** The context with {@code properties} ({@code name=value}) besides its own, say {@code locks.cache.*}. */
    public static ConfigurableApplicationContext start(String... properties) {
        return start(new Class<?>[0], properties);
    }

    /** The context with more bean definitions ({@code sources}), say a Redis connection factory. */
    public static ConfigurableApplicationContext start(Class<?>[] sources, String... properties) {
        return new SpringApplicationBuilder(Beans.class).sources(sources)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties("locks.backend=local", "logging.level.root=warn",
                        "spring.main.register-shutdown-hook=false")
                .properties(properties)
                .run();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({LocksAutoConfiguration.class, LocksCacheAutoConfiguration.class})
    @EnableCaching
    static class Beans {

        @Bean
        CacheManager cacheManager(Environment environment) {
            Duration expiry = environment.getProperty(CACHE_EXPIRY, Duration.class, Duration.ofMinutes(5));
            CaffeineCacheManager manager = new CaffeineCacheManager(CACHE);
            manager.setCaffeine(Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(expiry));
            return manager;
        }

        @Bean
        Accounts accounts() {
            return new Accounts();
        }

        @Bean
        SlowQuotes slowQuotes() {
            return new SlowQuotes(COMPUTE_MILLIS);
        }
    }
}
