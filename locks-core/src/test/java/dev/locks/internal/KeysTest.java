package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeysTest {

    @Test
    void keysShouldBeSortedAndDistinct() {
        assertThat(Keys.normalize(List.of("b", "a", "c", "a", "b"))).containsExactly("a", "b", "c");
        assertThat(Keys.normalize(Set.of("only"))).containsExactly("only");
        assertThat(Keys.normalize(List.of())).containsExactly("__global_lock__");
    }

    @Test
    void badKeysShouldNameTheirPosition() {
        assertThatThrownBy(() -> Keys.normalize(Arrays.asList("a", "b", null))).hasMessage("key at position 2 is null");
        assertThatThrownBy(() -> Keys.normalize(List.of(""))).hasMessage("key at position 0 is empty: \"\"");
        assertThatThrownBy(() -> Keys.normalize(List.of("a", " \t"))).hasMessageContaining("position 1 is blank");
        assertThatThrownBy(() -> Keys.normalize(null)).hasMessageContaining("must not be null");
    }
}
