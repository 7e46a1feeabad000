package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.StartupFailures;
import dev.locks.spring.reactive.ReactiveLease;
import java.time.Duration;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @Locked} on Reactor's {@code Mono} and {@code Flux} starts (issue 13; refused before it), and
 * {@code @FetchOrCompute} on {@code Mono}; other reactive return types still stop startup, naming the types that
 * work, and so does {@code @FetchOrCompute} on a {@code Flux}. The behaviour of the locked publishers is in
 * {@code dev.locks.spring.reactive.ReactiveLockedWebTests}.
 */
class ReactiveReturnTypeStartupTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void lockedMonoAndFluxShouldStartAndHoldTheirKeysOnSubscription() {
        runner.withBean(ReactiveBean.class).run(context -> {
            assertThat(context).hasNotFailed();
            ReactiveBean bean = context.getBean(ReactiveBean.class);
            assertThat(bean.one("a").block(Duration.ofSeconds(30))).isEqualTo("a");
            assertThat(bean.many("b").collectList().block(Duration.ofSeconds(30))).containsExactly("b", "b");
        });
    }

    @Test
    void lockedFlowPublisherShouldStopStartup() {
        FailureAnalysis analysis = StartupFailures.analyzeStartup(runner, FlowPublisherBean.class,
                InvalidLocksAnnotationException.class);

        assertThat(analysis.getDescription()).contains("@Locked").contains("java.util.concurrent.Flow$Publisher")
                .contains("Mono and Flux");
        assertThat(analysis.getAction()).contains("Mono or Flux");
    }

    @Test
    void fetchOrComputeMonoShouldStartAndFluxShouldStopStartup() {
        runner.withBean(ComputedMonoBean.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ComputedMonoBean.class).find("a").block(Duration.ofSeconds(30))).isEqualTo("a1");
            assertThat(context.getBean(ComputedMonoBean.class).find("a").block(Duration.ofSeconds(30))).isEqualTo("a1");
        });
        FailureAnalysis analysis = StartupFailures.analyzeStartup(runner, ComputedFluxBean.class,
                InvalidLocksAnnotationException.class);

        assertThat(analysis.getDescription()).contains("@FetchOrCompute").contains("reactor.core.publisher.Flux")
                .contains("stream");
        assertThat(analysis.getAction()).contains("collectList()");
    }

    static class ComputedMonoBean {

        private int calls;

        @FetchOrCompute(key = "#id")
        public Mono<String> find(String id) {
            return Mono.fromSupplier(() -> id + (++calls));
        }
    }

    static class ComputedFluxBean {

        @FetchOrCompute(key = "#id")
        public Flux<String> find(String id) {
            return Flux.just(id);
        }
    }

    static class ReactiveBean {

        @Locked(keys = "#id")
        public Mono<String> one(String id) {
            return ReactiveLease.current().map(lease -> lease.keys().get(0));
        }

        @Locked(keys = "#id")
        public Flux<String> many(String id) {
            return Flux.range(0, 2).concatMap(i -> ReactiveLease.current().map(lease -> lease.keys().get(0)));
        }
    }

    static class FlowPublisherBean {

        @Locked(keys = "#id")
        public Flow.Publisher<String> find(String id) {
            return subscriber -> {
            };
        }
    }
}
