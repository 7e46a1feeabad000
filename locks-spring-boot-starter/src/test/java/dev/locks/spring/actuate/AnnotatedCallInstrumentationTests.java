package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Which method waits (issue 11, observation 3): the meters of an annotated call carry the tag {@code name},
 * {@code none} for direct calls of the API; with an {@code ObservationRegistry}, each annotated call's wait for
 * locks and each computation is an Observation ({@code locks.acquire}, {@code locks.compute}) that its handlers
 * (tracing) see, while the meters stay as they are.
 */
class AnnotatedCallInstrumentationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, LocksMetricsAutoConfiguration.class,
                    LocksObservationAutoConfiguration.class))
            .withBean(Worker.class);

    @Test
    void metersOfAnnotatedCallsShouldBeTaggedWithTheirNameAndDirectCallsWithNone() {
        runner.run(context -> {
            Worker worker = context.getBean(Worker.class);
            worker.work("a");
            worker.work("b");
            worker.quote("ACME");
            worker.rate("EUR");
            context.getBean(LockRegistry.class).acquire(List.of("direct")).close();

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("locks.acquire").tags("name", "Worker.work", "result", "acquired", "backend", "local")
                    .timer().count()).isEqualTo(2);
            assertThat(meters.get("locks.acquire").tags("name", "none", "result", "acquired").timer().count()).isOne();
            assertThat(meters.get("locks.compute").tags("name", "Worker.quote", "outcome", "computed").timer().count())
                    .isOne();
            assertThat(meters.get("locks.compute").tags("name", "rates", "outcome", "computed").timer().count())
                    .as("a named @FetchOrCompute is tagged with its name").isOne();
        });
    }

    @Test
    void observationRegistryShouldSeeBothObservationsAndTheMetersStayAsTheyAre() {
        Recorder recorder = new Recorder();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(recorder);
        runner.withBean(ObservationRegistry.class, () -> observations).run(context -> {
            Worker worker = context.getBean(Worker.class);
            worker.work("a");
            worker.quote("ACME");

            assertThat(recorder.stopped).containsKeys("locks.acquire", "locks.compute");
            assertThat(recorder.stopped.get("locks.acquire").getLowCardinalityKeyValue("name").getValue())
                    .isEqualTo("Worker.work");
            assertThat(recorder.stopped.get("locks.acquire").getLowCardinalityKeyValue("backend").getValue())
                    .isEqualTo("local");
            assertThat(recorder.stopped.get("locks.compute").getLowCardinalityKeyValue("name").getValue())
                    .isEqualTo("Worker.quote");
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("locks.acquire").tags("name", "Worker.work", "result", "acquired").timer().count())
                    .isOne();
            assertThat(meters.get("locks.compute").tags("name", "Worker.quote", "outcome", "computed").timer().count())
                    .isOne();
        });
    }

    @Test
    void eachObservationShouldCarryTheCallsResultOrOutcomeAsTheMetersDo() {
        Recorder recorder = new Recorder();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(recorder);
        runner.withBean(ObservationRegistry.class, () -> observations).run(context -> {
            Worker worker = context.getBean(Worker.class);
            worker.work("a");
            worker.quote("ACME");
            worker.quote("ACME");
            try (Lease held = context.getBean(LockRegistry.class).acquire(List.of("busy"))) {
                Thread other = new Thread(() -> {
                    try {
                        worker.busy();
                    }
                    catch (LockTimeoutException expected) {
                        // its observation is what this test reads
                    }
                });
                other.start();
                other.join();
            }

            assertThat(recorder.values("locks.acquire", "result")).contains("acquired", "timeout");
            assertThat(recorder.values("locks.compute", "outcome")).containsExactly("computed", "hit");
            assertThat(recorder.all).filteredOn(observed -> observed.getName().equals("locks.acquire"))
                    .filteredOn(observed -> observed.getLowCardinalityKeyValue("result").getValue().equals("timeout"))
                    .singleElement().satisfies(observed -> assertThat(observed.getError())
                            .isInstanceOf(LockTimeoutException.class));
        });
    }

    @Test
    void springBootsObservationSetupShouldSeeTheObservationsAndLeaveTheMetersAsTheyAre() {
        Recorder recorder = new Recorder();
        runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
                .withBean(Recorder.class, () -> recorder)
                .run(context -> {
                    Worker worker = context.getBean(Worker.class);
                    worker.work("a");
                    worker.quote("ACME");

                    assertThat(recorder.stopped).containsKeys("locks.acquire", "locks.compute");
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.find("locks.acquire").meters()).isNotEmpty().allSatisfy(meter -> assertThat(
                            meter.getId().getTags()).extracting(Tag::getKey).containsExactlyInAnyOrder("backend", "name",
                                    "result"));
                    assertThat(meters.find("locks.compute").meters()).isNotEmpty().allSatisfy(meter -> assertThat(
                            meter.getId().getTags()).extracting(Tag::getKey).containsExactlyInAnyOrder("backend", "name",
                                    "outcome"));
                    assertThat(meters.getMeters()).extracting(meter -> meter.getId().getName())
                            .doesNotContain("locks.acquire.active", "locks.compute.active");
                    assertThat(meters.get("locks.acquire").tags("name", "Worker.work", "result", "acquired").timer()
                            .count()).isOne();
                });
    }

    @Test
    void withoutMicrometerObservationTheObservationsShouldStepAside() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class,
                        LocksObservationAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksObservations.class)
                        .hasSingleBean(LockRegistry.class));
    }

    /** Keeps the context of every observation that stopped, by name. */
    static final class Recorder implements ObservationHandler<Observation.Context> {

        final Map<String, Observation.Context> stopped = new ConcurrentHashMap<>();

        final List<Observation.Context> all = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            stopped.put(context.getName(), context);
            all.add(context);
        }

        /** The value of {@code key} on each stopped observation named {@code name}, in order ("" if absent). */
        List<String> values(String name, String key) {
            return all.stream().filter(context -> context.getName().equals(name))
                    .map(context -> context.getLowCardinalityKeyValue(key))
                    .map(value -> value == null ? "" : value.getValue()).toList();
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    static class Worker {

        @Locked(keys = "'work:' + #id")
        public String work(String id) {
            return id;
        }

        @Locked(keys = "'busy'", retries = "0")
        public void busy() {
        }

        @FetchOrCompute(key = "#symbol", ttl = "1m")
        public String quote(String symbol) {
            return symbol + "=1";
        }

        @FetchOrCompute(name = "rates", key = "#currency", ttl = "1m")
        public String rate(String currency) {
            return currency + "=1";
        }
    }
}
