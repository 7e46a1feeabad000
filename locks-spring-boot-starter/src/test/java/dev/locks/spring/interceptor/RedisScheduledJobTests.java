package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.HeldLock;
import dev.locks.LockRegistry;
import dev.locks.annotation.Locked;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.LogCapture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * SPEC 10 end to end: a {@code @Scheduled} job under {@code @Locked(waitTime = "0", onTimeout = "skip",
 * holdAtLeast = "1s")} on two nodes sharing one redis-server, each ticking every 100 ms for about 5 s, as
 * Spring's scheduler runs it. The runs never overlap, no run starts less than 1 s after the one before (by the
 * start times Redis stores with each lock, so that a loaded machine cannot make it flake), and the scheduler never
 * sees an exception: nothing is logged at {@code WARN} or {@code ERROR}. Spring Boot's task scheduler, as an
 * application has it, stops (letting a running tick end) before the registry closes.
 */
class RedisScheduledJobTests {

    /** Redis stores times in milliseconds. */
    private static final Duration CLOCK_SLACK = Duration.ofMillis(2);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final Runs runs = new Runs();

    private ApplicationContextRunner node(String name) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class,
                        TaskSchedulingAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "spring.application.name=" + name)
                .withUserConfiguration(Scheduling.class)
                .withBean(Runs.class, () -> runs)
                .withBean(Job.class);
    }

    @Test
    void twoNodesTickingOneJobShouldRunItOnOneNodeAtATimeAtMostOncePerHoldAtLeast() {
        LogCapture[] logs = new LogCapture[1]; // from when both nodes run until both have stopped
        try {
            node("first").run(first -> node("second").run(second -> {
                logs[0] = new LogCapture(LockedInterceptor.class.getName());
                Thread.sleep(5_000);
                first.getBean(Job.class).stop();
                second.getBean(Job.class).stop();
            }));
            assertThat(logs[0].warnings()).isEmpty();
            assertThat(logs[0].debug()).as("the other ticks were skipped")
                    .filteredOn(line -> line.contains("Skipped Job.tick")).hasSizeGreaterThan(10);
        }
        finally {
            if (logs[0] != null) {
                logs[0].close();
            }
        }
        assertThat(runs.overlaps).hasValue(0);
        List<Instant> starts = new ArrayList<>(runs.starts);
        assertThat(starts).as("runs in 5 s (at most one a second: below)").hasSizeGreaterThanOrEqualTo(3);
        assertThat(runs.owners).as("the lock's owner names the application instance")
                .allSatisfy(owner -> assertThat(owner).containsAnyOf("first", "second"));
        List<Instant> sorted = new ArrayList<>(starts);
        sorted.sort(null);
        assertThat(sorted).as("in the order they ran").isEqualTo(starts);
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(Duration.between(sorted.get(i - 1), sorted.get(i))).as("run %d after run %d", i, i - 1)
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(1).minus(CLOCK_SLACK));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {
    }

    /** What the job's runs did, shared by both nodes. */
    static class Runs {

        final AtomicInteger running = new AtomicInteger();

        final AtomicInteger overlaps = new AtomicInteger();

        final List<Instant> starts = Collections.synchronizedList(new ArrayList<>());

        final List<String> owners = Collections.synchronizedList(new ArrayList<>());
    }

    /** One per node, as an application declares its scheduled job. */
    static class Job {

        private final Runs runs;

        private final ObjectProvider<LockRegistry> registry;

        private volatile boolean stopped;

        Job(Runs runs, ObjectProvider<LockRegistry> registry) {
            this.runs = runs;
            this.registry = registry;
        }

        @Scheduled(fixedRate = 100)
        @Locked(keys = "'report'", waitTime = "0", onTimeout = "skip", lockTimeout = "10s", holdAtLeast = "1s")
        public void tick() {
            if (stopped) {
                return;
            }
            if (runs.running.incrementAndGet() > 1) {
                runs.overlaps.incrementAndGet();
            }
            HeldLock lock = registry.getObject().heldLock("report").orElseThrow();
            runs.starts.add(lock.acquiredAt());
            runs.owners.add(lock.owner());
            runs.running.decrementAndGet();
        }

        public void stop() {
            stopped = true;
        }
    }
}
