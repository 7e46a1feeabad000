package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.locks.LockRegistry;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
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
        try (URLClassLoader withoutRedis = classpathWithoutRedis()) {
            assertThat(withoutRedis.getResource("org/springframework/data/redis/connection/RedisConnectionFactory.class"))
                    .isNull();
            assertThat(withoutRedis.getResource("dev/locks/redis/RedisLockRegistry.class")).isNull();

            assertThat(startInside(withoutRedis)).isEqualTo("local");
        }
    }

    @Test
    void redisBackendShouldFailStartupNamingTheDependencyToAdd() throws Exception {
        try (URLClassLoader withoutRedis = classpathWithoutRedis()) {
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
    private static Object startInside(ClassLoader loader, String... args) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return loader.loadClass(PlainApplication.class.getName()).getMethod("backend", String[].class)
                    .invoke(null, (Object) args);
        }
        finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static URLClassLoader classpathWithoutRedis() throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (REDIS_JARS.stream().noneMatch(entry::contains)) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        assertThat(urls).as("the test classpath (java.class.path)").hasSizeGreaterThan(10);
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
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
