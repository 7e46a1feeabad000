package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KeysTest {

    @Test
    void keysShouldBeSortedAndDistinct() {
        assertThat(Keys.normalize(List.of("b", "a", "c", "a", "b"))).containsExactly("a", "b", "c");
        assertThat(Keys.normalize(Set.of("only"))).containsExactly("only");
        assertThat(Keys.normalize(List.of())).containsExactly("__global_lock__");
    }

    @Test
    void keysGivenSortedAndDistinctShouldComeBackAsGivenAndOthersSorted() {
        assertThat(Keys.normalize(List.of("a", "b", "c"))).containsExactly("a", "b", "c");
        assertThat(Keys.normalize(List.of("a", "a", "b"))).as("sorted, not distinct").containsExactly("a", "b");
        assertThat(Keys.normalize(List.of("a", "c", "b"))).containsExactly("a", "b", "c");
        assertThatThrownBy(() -> Keys.normalize(List.of("a", "b", "c"), new Keys.Limits(2, 10)))
                .as("sorted input keeps the limit").hasMessageContaining("locks.max-keys");
    }

    @Test
    void badKeysShouldNameTheirPosition() {
        assertThatThrownBy(() -> Keys.normalize(Arrays.asList("a", "b", null))).hasMessage("key at position 2 is null");
        assertThatThrownBy(() -> Keys.normalize(List.of(""))).hasMessage("key at position 0 is empty: \"\"");
        assertThatThrownBy(() -> Keys.normalize(List.of("a", " \t"))).hasMessageContaining("position 1 is blank");
        assertThatThrownBy(() -> Keys.normalize(null)).hasMessageContaining("must not be null");
    }

    @Test
    void keyLongerThanTheLimitShouldNameItsPositionAndThePropertyWithAShortMessage() {
        String huge = "k".repeat(1 << 20);
        assertThatThrownBy(() -> Keys.normalize(List.of("a", huge)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("key at position 1 is 1048576 characters long, more than "
                        + "locks.max-key-length (1024)")
                .message().hasSizeLessThan(300);
        assertThat(Keys.normalize(List.of("k".repeat(1024)))).hasSize(1);
        assertThatThrownBy(() -> Keys.normalize(List.of("abcd"), new Keys.Limits(10, 3)))
                .hasMessageContaining("position 0").hasMessageContaining("locks.max-key-length (3)");
    }

    @Test
    void unpairedSurrogateShouldBeRejectedNamingItsPosition() {
        assertThatThrownBy(() -> Keys.normalize(List.of("user:a", "user:\uD800")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key at position 1 is not well-formed UTF-16")
                .hasMessageContaining("\\uD800 at index 5");
        assertThatThrownBy(() -> Keys.normalize(List.of("\uDC00x"))).hasMessageContaining("position 0");
        assertThatThrownBy(() -> Keys.requireValid("x\uD83D", 3)).hasMessageContaining("position 3");
        assertThat(Keys.normalize(List.of("user:\uD83D\uDE00"))).as("a pair is fine").hasSize(1);
    }

    @Test
    void moreDistinctKeysThanTheLimitShouldBeRejectedFastWithAShortMessage() {
        List<String> many = IntStream.range(0, 100_000).mapToObj(i -> "key-" + i).toList();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Keys.normalize(many))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("an acquire takes at most 1000 distinct keys (locks.max-keys), "
                        + "this one asked for 100000: [")
                .hasMessageEndingWith(", and 99990 more]")
                .message().hasSizeLessThan(400);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("rejected before anything else")
                .isLessThan(Duration.ofSeconds(5));

        List<String> duplicates = IntStream.range(0, 5_000).mapToObj(i -> "key-" + i % 1000).toList();
        assertThat(Keys.normalize(duplicates)).as("duplicates count once").hasSize(1000);
        assertThatThrownBy(() -> Keys.normalize(List.of("a", "b", "c"), new Keys.Limits(2, 10)))
                .hasMessageContaining("at most 2 distinct keys");
    }

    @Test
    void limitsShouldBePositiveNamingTheProperty() {
        assertThatThrownBy(() -> new Keys.Limits(0, 10)).hasMessageContaining("locks.max-keys");
        assertThatThrownBy(() -> new Keys.Limits(10, -1)).hasMessageContaining("locks.max-key-length");
    }

    @Test
    void describeShouldListAtMostTenKeys() {
        assertThat(Keys.describe(List.of("a", "b"))).isEqualTo("[a, b]");
        List<String> twelve = IntStream.range(0, 12).mapToObj(i -> "k" + i).toList();
        assertThat(Keys.describe(twelve)).endsWith(", k9, and 2 more]").doesNotContain("k10");
        assertThat(Keys.describe(List.of("x".repeat(100)))).isEqualTo("[" + "x".repeat(64) + "... (100 characters)]");
    }
}
