package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.locks.LockRegistry;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application whose classpath really lacks locks-redis and Spring Data Redis (not merely hides them, as a
 * {@code FilteredClassLoader} does): it starts on the local backend as it always did, and no class of the
 * optional Redis backend is ever linked, so no {@code NoClassDefFoundError} can happen.
 */
class WithoutRedisOnTheClasspathTests {

    /** The parts of the test classpath that an application without the Redis backend does not have. */
    private static final List<String> REDIS_JARS = List.of("locks-redis", "spring-data-redis", "spring-boot-data-redis",
            "spring-boot-starter-data-redis", "lettuce");

    @Test
    void applicationShouldStartOnTheLocalBackend() throws Exception {
        try (IsolatedClasspath withoutRedis = classpathWithoutRedis()) {
            assertThat(withoutRedis.getResource("org/springframework/data/redis/connection/RedisConnectionFactory.class"))
                    .isNull();
            assertThat(withoutRedis.getResource("dev/locks/redis/RedisLockRegistry.class")).isNull();

            assertThat(startInside(withoutRedis)).isEqualTo("local");
        }
    }

    @Test
    void redisBackendShouldFailStartupNamingTheDependencyToAdd() throws Exception {
        try (IsolatedClasspath withoutRedis = classpathWithoutRedis()) {
            assertThatExceptionOfType(InvocationTargetException.class)
                    .isThrownBy(() -> startInside(withoutRedis, "--locks.backend=redis"))
                    .satisfies(failure -> {
                        List<Throwable> causes = Stream.iterate(failure.getCause(), cause -> cause != null,
                                Throwable::getCause).toList();
                        assertThat(causes).noneMatch(cause -> cause instanceof LinkageError);
                        assertThat(causes).anySatisfy(cause -> {
                            assertThat(cause.getClass().getName()).isEqualTo(MissingLocksBackendException.class.getName());
                            assertThat(cause).hasMessageContaining("add the dependency dev.locks:locks-redis");
                        });
                    });
        }
    }

    /** Starts {@link PlainApplication} as the isolated class loader has it, and returns its backend. */
    private static Object startInside(IsolatedClasspath loader, String... args) throws Exception {
        return loader.run(PlainApplication.class, "backend", args);
    }

    private static IsolatedClasspath classpathWithoutRedis() throws MalformedURLException {
        return IsolatedClasspath.without(REDIS_JARS);
    }

    /** An application of its own: every auto-configuration on its classpath, the starter's included. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class PlainApplication {

        /** Starts the application (not a web one), and returns the backend of its registry. */
        public static String backend(String... args) {
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PlainApplication.class)
                    .web(WebApplicationType.NONE)
                    .properties("spring.main.banner-mode=off")
                    .run(args)) {
                return context.getBean(LockRegistry.class).backend();
            }
        }
    }
}
