package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.reactive.ReactiveLease;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * An application without Kotlin on its classpath: the starter supports suspend functions and {@code Flow} when
 * Kotlin is there, and knows them by name only, so that a Java application, blocking or reactive, needs none of it.
 */
class WithoutKotlinOnTheClasspathTests {

    @Test
    void lockedAndComputedMethodsShouldRunWithoutKotlin() throws Exception {
        // org.jetbrains.kotlin and org.jetbrains.kotlinx, by their folders in the Maven repository
        String kotlinJars = String.join(File.separator, "org", "jetbrains", "kotlin");
        try (IsolatedClasspath withoutKotlin = IsolatedClasspath.without(List.of(kotlinJars))) {
            assertThat(withoutKotlin.getResource("kotlin/coroutines/Continuation.class")).isNull();
            assertThat(withoutKotlin.getResource("kotlinx/coroutines/flow/Flow.class")).isNull();

            assertThat(withoutKotlin.run(JavaApplication.class, "calls")).isEqualTo("[k]:[m]:computed-1:computed-1");
            assertThat(withoutKotlin.hasLoaded("dev.locks.spring.interceptor.ReactiveLockedCalls")).isTrue();
        }
    }

    /** An application of its own: every auto-configuration on its classpath, and a bean with annotated methods. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class JavaApplication {

        @Bean
        Worker worker() {
            return new Worker();
        }

        /** Starts the application (not a web one) on the local backend, calls each method, returns their results. */
        public static String calls(String... args) {
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(JavaApplication.class)
                    .web(WebApplicationType.NONE)
                    .properties("spring.main.banner-mode=off", "locks.backend=local",
                            "spring.autoconfigure.exclude=org.springframework.boot.data.redis.autoconfigure"
                                    + ".DataRedisAutoConfiguration")
                    .run(args)) {
                Worker worker = context.getBean(Worker.class);
                Duration timeout = Duration.ofSeconds(30);
                return worker.blocking() + ":" + worker.reactive().block(timeout) + ":"
                        + worker.computed().block(timeout) + ":" + worker.computed().block(timeout);
            }
        }
    }

    public static class Worker {

        private final AtomicInteger computations = new AtomicInteger();

        @Locked(keys = "'k'")
        public String blocking() {
            return Lease.current().orElseThrow().keys().toString();
        }

        @Locked(keys = "'m'")
        public Mono<String> reactive() {
            return ReactiveLease.current().map(lease -> lease.keys().toString());
        }

        @FetchOrCompute(key = "'c'")
        public Mono<String> computed() {
            return Mono.fromSupplier(() -> "computed-" + computations.incrementAndGet());
        }
    }
}
