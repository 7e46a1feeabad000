package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import dev.locks.annotation.Locked;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An application without Reactor on its classpath (Reactor is optional for the starter, which supports
 * {@code @Locked} on {@code Mono} and {@code Flux} when it is there): {@code @Locked} methods, blocking and
 * {@code CompletableFuture}, work as before, and the interceptor's Reactor code is never loaded. Lettuce needs
 * Reactor, so the Redis backend goes too.
 */
class WithoutReactorOnTheClasspathTests {

    private static final List<String> REACTOR_JARS = List.of("reactor-core", "reactor-test", "reactor-netty",
            "locks-redis", "spring-data-redis", "spring-boot-data-redis", "spring-boot-starter-data-redis", "lettuce");

    @Test
    void lockedMethodsShouldRunWithoutLoadingTheReactiveInterceptor() throws Exception {
        try (IsolatedClasspath withoutReactor = IsolatedClasspath.without(REACTOR_JARS)) {
            assertThat(withoutReactor.getResource("reactor/core/publisher/Mono.class")).isNull();

            assertThat(withoutReactor.run(PlainApplication.class, "lockedCalls")).isEqualTo("[k]:[f]");
            assertThat(withoutReactor.hasLoaded("dev.locks.spring.interceptor.LockedInterceptor")).isTrue();
            assertThat(withoutReactor.hasLoaded("dev.locks.spring.interceptor.ReactiveLockedCalls")).isFalse();
        }
    }

    /** An application of its own: every auto-configuration on its classpath, and a bean with locked methods. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class PlainApplication {

        @Bean
        Worker worker() {
            return new Worker();
        }

        /** Starts the application (not a web one), calls both locked methods, and returns their keys. */
        public static String lockedCalls(String... args) {
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PlainApplication.class)
                    .web(WebApplicationType.NONE)
                    .properties("spring.main.banner-mode=off")
                    .run(args)) {
                Worker worker = context.getBean(Worker.class);
                return worker.blocking() + ":" + worker.future().join();
            }
        }
    }

    public static class Worker {

        @Locked(keys = "'k'")
        public String blocking() {
            return Lease.current().orElseThrow().keys().toString();
        }

        @Locked(keys = "'f'")
        public CompletableFuture<String> future() {
            return CompletableFuture.completedFuture(Lease.current().orElseThrow().keys().toString());
        }
    }
}
