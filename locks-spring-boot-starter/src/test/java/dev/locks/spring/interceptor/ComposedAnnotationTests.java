package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeCache;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.annotation.EvictComputed;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.StartupFailures;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AliasFor;

/**
 * {@code @Locked}, {@code @FetchOrCompute} and {@code @EvictComputed} as meta-annotations (SPEC 5): an annotation of
 * the application carrying one, with {@code @AliasFor} attributes, is found, checked at startup and applied as the
 * plain annotation.
 */
class ComposedAnnotationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void composedLockedShouldTakeItsAliasedKeysAndItsOwnAttributes() {
        runner.withBean(Jobs.class).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.report("daily")).containsExactly("report:daily");
            assertThat(jobs.unnamed()).containsExactly(Jobs.class.getName() + ".unnamed");

            Lease held = context.getBean(LockRegistry.class).acquire(List.of("report:daily"));
            held.detach();
            try (held) {
                assertThat(jobs.report("daily")).as("skipped: waitTime 0 and onTimeout skip of @SingleNode").isNull();
                assertThat(jobs.report("weekly")).containsExactly("report:weekly");
            }
            assertThat(jobs.runs()).isEqualTo(3);
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void composedFetchOrComputeAndEvictComputedShouldStoreAndEvictUnderTheAliasedName() {
        runner.withBean(Quotes.class).run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.quote("ACME")).isEqualTo("ACME#1");
            assertThat(quotes.quote("ACME")).isEqualTo("ACME#1");
            assertThat(context.getBean(ComputeCache.class).<String>fetchOrCompute("quotes:ACME", Duration.ofMinutes(1),
                    () -> "not stored")).as("stored under the name that the composed annotation gives").isEqualTo("ACME#1");

            quotes.update("ACME");

            assertThat(quotes.quote("ACME")).isEqualTo("ACME#2");
        });
    }

    @Test
    void badExpressionInAComposedAnnotationShouldStopStartupNamingTheMethod() {
        FailureAnalysis analysis = StartupFailures.analyzeStartup(runner, BadComposed.class,
                InvalidLocksAnnotationException.class);
        assertThat(analysis.getDescription()).contains("@Locked annotation of method 'run'")
                .contains("ComposedAnnotationTests.BadComposed.run(String)")
                .contains("Attribute: keys")
                .contains("Value: '#nope'")
                .contains("'#nope' is not a parameter of the method");
    }

    @Test
    void badExpressionInAComposedFetchOrComputeShouldStopStartupNamingTheMethod() {
        FailureAnalysis analysis = StartupFailures.analyzeStartup(runner, BadComposedQuote.class,
                InvalidLocksAnnotationException.class);
        assertThat(analysis.getDescription()).contains("@FetchOrCompute annotation of method 'quote'")
                .contains("Value: ''x' +'");
    }

    @Test
    void badAttributeFixedInTheComposedAnnotationShouldStopStartupNamingTheMethod() {
        FailureAnalysis analysis = StartupFailures.analyzeStartup(runner, PrimitiveSingleNode.class,
                InvalidLocksAnnotationException.class);
        assertThat(analysis.getDescription()).contains("method 'count'").contains("Attribute: onTimeout")
                .contains("it returns long");
    }

    /** A scheduled job's lock, as an application would declare it. */
    @Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
    @Retention(RetentionPolicy.RUNTIME)
    @Locked(waitTime = "0", onTimeout = "skip", lockTimeout = "10m")
    @interface SingleNode {

        @AliasFor(annotation = Locked.class, attribute = "keys")
        String[] value() default {};

        @AliasFor(annotation = Locked.class, attribute = "holdAtLeast")
        String holdAtLeast() default "";
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @FetchOrCompute(name = "quotes", key = "", ttl = "1m")
    @interface Quote {

        @AliasFor(annotation = FetchOrCompute.class, attribute = "key")
        String value();
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @EvictComputed(name = "quotes", key = "")
    @interface EvictQuote {

        @AliasFor(annotation = EvictComputed.class, attribute = "key")
        String value();
    }

    static class Jobs {

        private final AtomicInteger runs = new AtomicInteger();

        @SingleNode(value = "'report:' + #period", holdAtLeast = "0s")
        public List<String> report(String period) {
            runs.incrementAndGet();
            return Lease.current().orElseThrow().keys();
        }

        @SingleNode
        public List<String> unnamed() {
            runs.incrementAndGet();
            return Lease.current().orElseThrow().keys();
        }

        public int runs() {
            return runs.get();
        }
    }

    static class Quotes {

        private final AtomicInteger computations = new AtomicInteger();

        @Quote("#symbol")
        public String quote(String symbol) {
            return symbol + "#" + computations.incrementAndGet();
        }

        @EvictQuote("#symbol")
        public void update(String symbol) {
        }
    }

    static class BadComposed {

        @SingleNode("#nope")
        public void run(String period) {
        }
    }

    static class BadComposedQuote {

        @Quote("'x' +")
        public String quote(String symbol) {
            return symbol;
        }
    }

    static class PrimitiveSingleNode {

        @SingleNode
        public long count() {
            return 1;
        }
    }
}
