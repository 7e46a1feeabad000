package dev.locks.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The allow-list both ways, the limits, and malformed bytes. */
class JdkValueSerializerTest {

    record Quote(String symbol, BigDecimal price) implements Serializable {
    }

    private final JdkValueSerializer jdkOnly = JdkValueSerializer.withJdkTypes(getClass().getClassLoader(), List.of());

    @Test
    void jdkValueTypesShouldRoundTrip() {
        Object value = Map.of("at", Instant.EPOCH, "price", new BigDecimal("1.5"), "list", List.of(1L, "two"));

        assertThat(jdkOnly.deserialize(jdkOnly.serialize(value))).isEqualTo(value);
        assertThat(jdkOnly.deserialize(jdkOnly.serialize(null))).isNull();
    }

    @Test
    void aClassOutsideTheAllowListShouldBeRefusedOnWritingAndOnReading() {
        Quote quote = new Quote("ACME", BigDecimal.TEN);
        assertThatThrownBy(() -> jdkOnly.serialize(quote)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Quote.class.getName());

        JdkValueSerializer allowing = new JdkValueSerializer(getClass().getClassLoader(),
                List.of("dev.locks.spi.*", "java.lang.*", "java.math.*"));
        byte[] written = allowing.serialize(quote);
        assertThat(allowing.deserialize(written)).isEqualTo(quote);
        assertThatThrownBy(() -> jdkOnly.deserialize(written)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void malformedOrTooDeepValuesShouldNotBeRead() {
        assertThatThrownBy(() -> jdkOnly.deserialize(new byte[] {(byte) 0xde, (byte) 0xad}))
                .isInstanceOf(IllegalArgumentException.class);
        List<Object> deep = new ArrayList<>();
        List<Object> inner = deep;
        for (int depth = 0; depth < JdkValueSerializer.MAX_DEPTH + 5; depth++) {
            List<Object> next = new ArrayList<>();
            inner.add(next);
            inner = next;
        }
        byte[] written = jdkOnly.serialize(deep);
        assertThatThrownBy(() -> jdkOnly.deserialize(written)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void patternsThatAreNotClassPatternsShouldBeRefused() {
        for (String bad : List.of(" ", "!java.lang.*", "maxdepth=5", "a;b")) {
            assertThatThrownBy(() -> new JdkValueSerializer(null, List.of(bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pattern");
        }
        assertThatThrownBy(() -> new JdkValueSerializer(null, List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
