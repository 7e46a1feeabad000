package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LocksObserver;
import dev.locks.LocksObserver.ComputeResult;
import dev.locks.test.ManualClock;
import java.io.InvalidClassException;
import java.io.StreamCorruptedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnreadableValuesTest {

    private final ManualClock clock = new ManualClock();
    private final List<ComputeResult> events = new ArrayList<>();
    private final UnreadableValues unreadable = new UnreadableValues(new ComputeEvents(new LocksObserver() {
        @Override
        public void onCompute(ComputeResult result, long nanos) {
            events.add(result);
        }
    }, clock), clock);

    @Test
    void everyUnreadableValueShouldBeCountedButWarnedAboutOncePerKeyAndMinute() {
        StreamCorruptedException corrupt = new StreamCorruptedException("invalid stream header: 73656372");

        assertThat(unreadable.report("a", corrupt)).isTrue();
        assertThat(unreadable.report("a", corrupt)).isFalse();
        assertThat(unreadable.report("b", corrupt)).as("another key").isTrue();
        clock.advance(Duration.ofSeconds(59));
        assertThat(unreadable.report("a", corrupt)).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(unreadable.report("a", corrupt)).isTrue();

        assertThat(events).hasSize(5).containsOnly(ComputeResult.UNREADABLE);
    }

    @Test
    void warningShouldNameTheKindOfFailureButNeverQuoteTheBytes() {
        String kind = UnreadableValues.kind(new IllegalStateException("wrapped: secret",
                new StreamCorruptedException("invalid stream header: 73656372")));

        assertThat(kind).isEqualTo("java.lang.IllegalStateException caused by java.io.StreamCorruptedException")
                .doesNotContain("7365").doesNotContain("secret");
        assertThat(UnreadableValues.kind(new InvalidClassException("com.example.Gone", "no such class")))
                .contains("com.example.Gone");
    }

    @Test
    void keysRememberedShouldStayBounded() {
        for (int i = 0; i <= UnreadableValues.REMEMBERED; i++) {
            unreadable.report("key-" + i, new StreamCorruptedException());
        }
        assertThat(unreadable.report("key-0", new StreamCorruptedException()))
                .as("forgotten once the bound was reached, so warned again").isTrue();
    }
}
