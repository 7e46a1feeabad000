package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.StartupFailures;
import kotlin.coroutines.Continuation;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Kotlin {@code suspend} functions annotated {@code @Locked} or {@code @FetchOrCompute} stop startup when
 * kotlinx-coroutines-reactor is not on the classpath (issue 11, observation 4; this test run has Kotlin's standard
 * library only): Spring then calls a suspend function as a plain method, which returns at its first suspension point
 * and finishes later on a coroutine, so a proxy around it would run the rest of its body without the lock. With it,
 * both annotations hold across the coroutine (issue 13: the Kotlin tests of locks-kotlin-tests). The fixtures are
 * Java methods of the JVM shape the Kotlin compiler gives {@code suspend fun find(id: String): String} (a last
 * parameter {@code Continuation}, an erased {@code Object} result), which is all the starter sees of a compiled one.
 */
class SuspendFunctionStartupTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void lockedSuspendFunctionShouldStopStartup() {
        FailureAnalysis analysis = failure(LockedSuspending.class);

        assertThat(analysis.getDescription()).contains("@Locked").contains("LockedSuspending.find(String, Continuation)")
                .contains("Kotlin suspend function");
        assertThat(analysis.getAction()).contains("withLocks");
    }

    @Test
    void fetchOrComputeSuspendFunctionShouldStopStartup() {
        FailureAnalysis analysis = failure(ComputedSuspending.class);

        assertThat(analysis.getDescription()).contains("@FetchOrCompute")
                .contains("ComputedSuspending.find(String, Continuation)").contains("Kotlin suspend function");
        assertThat(analysis.getAction()).contains("fetchOrCompute");
    }

    private FailureAnalysis failure(Class<?> beanClass) {
        return StartupFailures.analyzeStartup(runner, beanClass, InvalidLocksAnnotationException.class);
    }

    /** {@code @Locked(keys = ["#id"]) suspend fun find(id: String): String}, as compiled. */
    static class LockedSuspending {

        @Locked(keys = "#id")
        public Object find(String id, Continuation<? super String> continuation) {
            return id;
        }
    }

    /** {@code @FetchOrCompute(key = "#id") suspend fun find(id: String): String}, as compiled. */
    static class ComputedSuspending {

        @FetchOrCompute(key = "#id")
        public Object find(String id, Continuation<? super String> continuation) {
            return id;
        }
    }
}
